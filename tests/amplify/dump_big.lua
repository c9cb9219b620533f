-- string.dump of a big function
local src = "a=a+1 "
for i = 1, 13 do src = src .. src end
local f = load("local a = 0 " .. src)
while true do string.dump(f) end
