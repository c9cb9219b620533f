-- one GETFIELD walking a 1999-table __index chain
-- gap: stock the __index walk runs inside the VM (lraf VM target)
local t = {}
for i = 1, 1998 do t = setmetatable({}, {__index = t}) end
while true do local _ = t.missing end
