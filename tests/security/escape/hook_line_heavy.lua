-- A line hook that does the work, on a program whose blocks are quiet
-- (lazy increments in the scratch register).
local s = 0
debug.sethook(function() for i = 1, 1000 do s = s + i end end, "l")
local a, b = 0, 1
while true do
  a = a + 1
  b = a * 2
end
