-- Hooks set on a coroutine that reset its frames' temporaries (writing
-- a number over a table there is refused with an error: pcall).
local co = coroutine.create(function()
  local x = 0
  while true do x = x + 1 end
end)
debug.sethook(co, function()
  for n = 1, 40 do
    local name = debug.getlocal(2, n)
    if not name then break end
    if name == "(temporary)" then
      pcall(debug.setlocal, 3, n, math.mininteger)  -- level 3 under pcall
    end
  end
  for n = 1, 6 do debug.setupvalue(debug.getinfo(2, "f").func, n, -1e15) end
end, "", 1)
coroutine.resume(co)
