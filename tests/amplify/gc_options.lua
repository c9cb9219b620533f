-- collectgarbage("step") with a large size finishes a cycle each time
local keep = {}
for i = 1, 2000 do keep[i] = {i, {}, "s" .. i} end
local big = {string.byte(("x"):rep(400000), 1, -1)}
while true do collectgarbage("step", 1000000) end
