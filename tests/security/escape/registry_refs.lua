-- Overwrite integer references in the registry (lraf's anchor among
-- them) and light-userdata keyed entries.
local r = debug.getregistry()
for k, v in pairs(r) do
  if math.type(k) == "integer" and k > 2 then r[k] = nil end
  if type(k) == "userdata" then r[k] = nil end
end
for i = 3, 20 do r[i] = -1e15 end
collectgarbage()
local x = 0
while true do x = x + 1 end
