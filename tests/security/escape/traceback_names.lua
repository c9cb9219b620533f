-- No traceback or error message names lraf's internals.
local function spin() local x = 0 while true do x = x + 1 end end
local msgs = {}
local function handler(m)
  msgs[#msgs + 1] = debug.traceback(tostring(m), 1)
  return m
end
xpcall(function() return nil + 1 end, handler)
for _, m in ipairs(msgs) do
  if m:find("lraf") then error("lraf named: " .. m) end
end
spin()
