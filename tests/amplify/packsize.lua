-- string.packsize with a 16 MB format
local f = "b"
for i = 1, 24 do f = f .. f end
while true do string.packsize(f) end
