-- Replace the slots past a function's own with a function that does
-- nothing (the consume slot) or a huge negative number (the counter).
local x = 0
local function spin() while true do x = x + 1 end end
for n = 2, 8 do debug.setupvalue(spin, n, function() end) end
for n = 2, 8 do debug.setupvalue(spin, n, math.mininteger) end
spin()
