-- a == b on two equal 32 MB strings built separately
-- gap: stock string comparison runs inside the VM (lraf VM target)
local a, b = "x", "x"
for i = 1, 25 do a = a .. a end
for i = 1, 25 do b = b .. b end
while true do local _ = a == b end
