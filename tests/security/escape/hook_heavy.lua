-- A count hook that does the real work: its own loop must be metered.
local s = 0
debug.sethook(function() for i = 1, 1e6 do s = s + i end end, "", 5)
local x = 0
while true do x = x + 1 end
