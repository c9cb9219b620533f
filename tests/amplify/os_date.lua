-- os.date with a 1 MB format
local f = "%c"
for i = 1, 19 do f = f .. f end
while true do os.date(f) end
