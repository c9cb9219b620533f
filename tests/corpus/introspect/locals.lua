-- getlocal over named locals, temporaries and varargs, at several
-- levels, and parameter names of functions.
local function show(level)
  local out = {}
  for n = 1, 30 do
    local name, v = debug.getlocal(level + 1, n)
    if name == nil then break end
    out[#out + 1] = name .. "=" .. (type(v) == "number" and tostring(v) or type(v))
  end
  for n = -1, -5, -1 do
    local name, v = debug.getlocal(level + 1, n)
    if name == nil then break end
    out[#out + 1] = name .. "=" .. tostring(v)
  end
  print(level, table.concat(out, " "))
end
local function inner(p, q, ...)
  local r = p + q
  show(1)
  show(2)
  local t = {r, r * 2, show(1)}
  return t
end
local function outer(a)
  local b = a * 2
  for i = 1, 2 do
    local c = i + b
    inner(c, i, "v1", "v2")
  end
  return b + math.max(1, 2, (show(1) or 3))
end
outer(5)
for n = 1, 4 do print("param", n, debug.getlocal(inner, n)) end
print(debug.getlocal(print, 1))
print(pcall(debug.getlocal, 50, 1))
