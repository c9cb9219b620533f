-- string.dump of each of 3000 chunks loaded under one name (each search rewrites the others)
local fs = {}
for i = 1, 3000 do fs[i] = load("return " .. i, "=same") end
while true do for i = 1, #fs do string.dump(fs[i]) end end
