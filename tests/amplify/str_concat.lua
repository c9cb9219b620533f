-- a .. "" copying a 32 MB string: CONCAT is one instruction
-- gap: stock CONCAT copies inside the VM (lraf VM target)
local a = "x"
for i = 1, 25 do a = a .. a end
while true do local _ = a .. "y" end
