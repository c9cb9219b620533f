-- rawget with a 32 MB key equal to, but not the same string as, a key of t
local a, b = "x", "x"
for i = 1, 25 do a = a .. a end
for i = 1, 25 do b = b .. b end
local t = {[a] = true}
while true do rawget(t, b) end
