-- Read every upvalue slot; call every function found (consume?) and
-- write numbers found back as huge negatives.
local function spin() while true do end end
for n = 1, 8 do
  local name, v = debug.getupvalue(spin, n)
  if type(v) == "function" then pcall(v) end
  if type(v) == "number" then debug.setupvalue(spin, n, -1e15) end
  if name and name:find("lraf") then error("lraf name visible: " .. name) end
end
spin()
