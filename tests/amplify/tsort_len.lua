-- table.sort by __len's answer (2^30), elements from a C __index
local t = setmetatable({}, {__len = function() return 1 << 30 end,
                            __index = tostring, __newindex = rawequal})
table.sort(t)
