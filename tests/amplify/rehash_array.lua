-- a SETTABLE that forces a rehash of a table with a 2^17-slot array part, again and again
-- gap: stock the rehash is the VM's; the lraf VM charges it
local t = {}
for i = 1, 1 << 17 do t[i] = true end
t.x = 1
local k = 0.5
while true do k = k + 1; t[k] = 1; t[k] = nil end
