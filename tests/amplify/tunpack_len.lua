-- table.unpack by __len's answer: 900k nils a call
local t = setmetatable({}, {__len = function() return 900000 end})
while true do table.unpack(t) end
