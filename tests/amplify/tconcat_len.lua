-- table.concat by __len's answer (2^40), elements from a C __index
local t = setmetatable({}, {__len = function() return 1 << 40 end,
                            __index = rawlen})
while true do table.concat(t, "", 1, 1 << 22) end
