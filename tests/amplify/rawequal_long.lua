-- rawequal on two equal 32 MB strings built separately
local a, b = "x", "x"
for i = 1, 25 do a = a .. a end
for i = 1, 25 do b = b .. b end
while true do rawequal(a, b) end
