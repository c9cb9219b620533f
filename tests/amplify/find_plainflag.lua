-- string.find(s, p, 1, true) with a long pattern: O(|s| x |p|)
local s, p = "a", "a"
for i = 1, 22 do s = s .. s end
for i = 1, 16 do p = p .. p end
p = p .. "b"
while true do string.find(s, p, 1, true) end
