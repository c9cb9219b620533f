-- The same with a stripped dump.
local function spin() local x = 0 while true do x = x + 1 end end
local g = assert(load(string.dump(spin, true)))
g()
