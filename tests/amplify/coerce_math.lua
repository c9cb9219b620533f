-- math.abs of a string of 100,000 digits (lua_tonumberx converts it)
-- gap: stock the conversion is the C API's; the lraf VM charges it
local s = ("1"):rep(100000)
while true do local x = math.abs(s) end
