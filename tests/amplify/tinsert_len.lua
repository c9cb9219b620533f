-- table.insert by __len's answer (2^40), on an empty table
local t = setmetatable({}, {__len = function() return 1 << 40 end})
table.insert(t, 1, 0)
