-- collectgarbage("incremental", 1, 1000): every allocation drives a collection of the live heap
local keep = {}
for i = 1, 50000 do keep[i] = {} end
collectgarbage("incremental", 1, 1000)
while true do local t = {} end
