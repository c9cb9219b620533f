-- load(string.dump(f)) must give back a metered function.
local function spin() local x = 0 while true do x = x + 1 end end
local g = assert(load(string.dump(spin)))
g()
