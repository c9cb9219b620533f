-- a step of utf8.codes skips every continuation byte of s (8 MB)
local s = "\x80"
for i = 1, 23 do s = s .. s end
s = "a" .. s
local step = utf8.codes(s)
while true do step(s, 1) end
