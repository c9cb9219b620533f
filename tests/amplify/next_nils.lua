-- next(t) on a table whose array part holds 500k nils scans them all
local t = {table.unpack({}, 1, 500000)}
while true do next(t) end
