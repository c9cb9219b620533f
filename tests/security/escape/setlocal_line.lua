-- A line hook that resets every temporary of every level.
local function spin()
  local t = {}
  while true do t[1] = 1 end
end
debug.sethook(function()
  for level = 2, 6 do
    if not debug.getinfo(level) then break end
    for n = 1, 60 do
      local name, v = debug.getlocal(level, n)
      if name == nil then break end
      if name == "(temporary)" and math.type(v) == "integer" then
        debug.setlocal(level, n, math.mininteger)
      end
    end
  end
end, "l")
spin()
