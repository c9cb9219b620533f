-- the heap held just under the memory limit: every allocation is refused and collects it all
-- memory-limit: 4000000
local LIMIT = 4000000
local t = {true}
while collectgarbage("count") * 1024 + #t * 40 < LIMIT - 400000 do
  table.move(t, 1, #t, #t + 1)
end
local pad = table.move(t, 1, 8192, 1, {})  -- slots to fill without growing
local i = 0
while collectgarbage("count") * 1024 < LIMIT - 2048 do
  i = i + 1
  pad[i] = {}
end
while true do local x = {} end
