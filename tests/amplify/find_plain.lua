-- string.find with a long special-free pattern: charged after the work
local s, p = "a", "a"
for i = 1, 22 do s = s .. s end
for i = 1, 16 do p = p .. p end
p = p .. "b"
while true do string.find(s, p) end
