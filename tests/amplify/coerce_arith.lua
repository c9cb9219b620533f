-- s + 0 with a string of 100,000 digits (the string's __add converts all of it)
local s = ("1"):rep(100000)
while true do local x = s + 0 end
