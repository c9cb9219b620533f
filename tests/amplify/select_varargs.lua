-- select('#', ...) over 200k varargs: every call moves all of them
local function f(...)
  local n = 0
  while true do n = n + select('#', ...) end
end
f(table.unpack({}, 1, 200000))
