-- next(t, k) from a hash key over a long run of removed keys
local t = {}
for i = 1, 60000 do t["k" .. i] = i end
for k in pairs(t) do t[k] = nil end
t.last = 1
local k0 = next(t)
while true do next(t, k0) next(t) end
