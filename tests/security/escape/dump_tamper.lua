-- Tampered dumps: flip bytes one at a time; whatever loads must be
-- metered (or refused).
local function spin() local x = 0 while true do x = x + 1 end end
local d = string.dump(spin)
for i = 13, #d do
  local t = d:sub(1, i - 1) .. string.char((d:byte(i) + 1) % 256) .. d:sub(i + 1)
  local f = load(t, "t", "b")
end
spin()
