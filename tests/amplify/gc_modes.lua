-- switching the collector's mode runs a full collection each time
local keep = {}
for i = 1, 2000 do keep[i] = {i, {}, "s" .. i} end
local big = {table.unpack({}, 1, 400000)}
while true do collectgarbage("generational") collectgarbage("incremental") end
