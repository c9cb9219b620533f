-- string.format("%s", o) where o's __tostring returns a 32 MB string
local big = "x"
for i = 1, 25 do big = big .. big end
local o = setmetatable({}, {__tostring = function() return big end})
while true do string.format("%s", o) end
