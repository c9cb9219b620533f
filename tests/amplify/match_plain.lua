-- a special-free match pattern: O(|s| x |p|)
local s, p = "a", "a"
for i = 1, 18 do s = s .. s end
for i = 1, 14 do p = p .. p end
p = p .. "b"
while true do string.match(s, p) end
