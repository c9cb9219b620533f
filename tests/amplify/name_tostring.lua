-- tostring of a table whose metatable's __name is a megabyte (copied into "NAME: 0x...")
local name = "x"
for i = 1, 20 do name = name .. name end
local v = setmetatable({}, {__name = name})
while true do local s = tostring(v) end
