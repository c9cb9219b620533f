-- string.dump and load with and without strip.
local up = 3
local function f(a, ...)
  local s = a
  for i = 1, select("#", ...) do s = s + select(i, ...) * up end
  return s
end
local d, ds = string.dump(f), string.dump(f, true)
print(#d, #ds, d == string.dump(f), ds == string.dump(f, true))
local g, h = load(d), load(ds)
debug.setupvalue(g, 2, 3)
debug.setupvalue(h, 2, 3)
print(f(1, 2, 3), g(1, 2, 3), h(1, 2, 3))
print(string.dump(g) == d, string.dump(h, true) == ds, string.dump(g, true) == ds)
local i = debug.getinfo(g, "Su")
print(i.source, i.short_src, i.linedefined, i.lastlinedefined, i.nups, i.what)
i = debug.getinfo(h, "Su")
print(i.source, i.short_src, i.linedefined, i.lastlinedefined, i.nups, i.what)
print(debug.getlocal(g, 1), debug.getlocal(h, 1))
print(load(d, "x", "t"))
print(load(string.dump(load("return 6 * 7")))())
local main = string.dump(load("local a = ... return a, _ENV ~= nil", "=chunk"))
print(load(main)(9))
print(pcall(string.dump, print))
local ok, e = pcall(h, nil)
print(ok, e)
