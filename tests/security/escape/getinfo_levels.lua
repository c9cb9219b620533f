-- From a count hook, take every function on the stack and reset the
-- slots past its own upvalues.
local function spin() local x = 0 while true do x = x + 1 end end
debug.sethook(function()
  for level = 1, 30 do
    local info = debug.getinfo(level, "fu")
    if not info then break end
    for n = info.nups + 1, info.nups + 4 do
      if debug.getupvalue(info.func, n) ~= nil then
        error("slot past nups visible")
      end
      debug.setupvalue(info.func, n, -1e15)
    end
  end
end, "", 100)
spin()
