-- an argument error naming a value whose __name is a megabyte, caught by pcall
local name = "x"
for i = 1, 20 do name = name .. name end
local v = setmetatable({}, {__name = name})
while true do pcall(string.rep, v, 1) end
