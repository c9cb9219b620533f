-- the same scan through the next that pairs returns
local t = {table.unpack({}, 1, 500000)}
while true do for _ in pairs(t) do end end
