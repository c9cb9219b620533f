-- VARARG and CALL moving 200k values into a Lua function
-- gap: stock VARARG/CALL moves values inside the VM (lraf VM target)
local function g() end
local function f(...)
  while true do g(...) end
end
f(table.unpack({}, 1, 200000))
