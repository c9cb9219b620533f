-- A count hook that raises errors inside lazy blocks, caught by pcall
-- around a quiet loop: the accounting must survive the unwinding.
local k = 0
local function inner()
  local a = 0
  for i = 1, 100 do a = a + i end
end
debug.sethook(function()
  k = k + 1
  if k % 3 == 0 and debug.getinfo(2, "f").func == inner then error("boom") end
end, "", 2)
while true do pcall(inner) end
