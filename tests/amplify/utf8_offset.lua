-- utf8.offset(s, 2) skips every continuation byte of s (8 MB)
local s = "\x80"
for i = 1, 23 do s = s .. s end
s = "a" .. s
while true do utf8.offset(s, 2) end
