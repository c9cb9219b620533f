-- Closures created inside a loop: reset each one's extra slots.
local fs = {}
for i = 1, 4 do fs[i] = function() local s = 0 while true do s = s + i end end end
for _, f in ipairs(fs) do
  for n = 1, 6 do debug.setupvalue(f, n, -2^62) end
end
fs[4]()
