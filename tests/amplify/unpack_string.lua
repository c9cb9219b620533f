-- table.unpack of a 999,000-byte string: a nil per byte, charged 0 before
local s = "x"
for i = 1, 20 do s = s .. s end
s = s:sub(1, 999000)
while true do table.unpack(s) end
