-- A loaded dump gets fresh upvalues: set them all, the slots past its
-- own too, then run it.
local function spin() local x = 0 while true do x = x + 1 end end
local g = assert(load(string.dump(spin)))
for n = 1, 6 do debug.setupvalue(g, n, -1e15) end
g()
