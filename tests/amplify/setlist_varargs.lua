-- SETLIST storing 200k values from one VARARG
-- gap: stock SETLIST moves values inside the VM (lraf VM target)
local function f(...)
  while true do local t = {...} end
end
f(table.unpack({}, 1, 200000))
