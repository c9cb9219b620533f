-- Walk the registry: reset every upvalue of every function found and
-- every integer reachable in it.
local seen = {}
local function walk(t, depth)
  if seen[t] or depth > 3 then return end
  seen[t] = true
  for k, v in pairs(t) do
    if type(v) == "function" then
      local n = 1
      while true do
        local name, u = debug.getupvalue(v, n)
        if name == nil then break end
        if math.type(u) == "integer" and u <= 0 then debug.setupvalue(v, n, -1e15) end
        n = n + 1
      end
    elseif type(v) == "table" then
      walk(v, depth + 1)
    end
  end
end
walk(debug.getregistry(), 0)
local x = 0
while true do x = x + 1 end
