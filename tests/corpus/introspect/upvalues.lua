-- getupvalue and setupvalue over every index a function has, and
-- past them.
local count, name = 0, "n"
local function f() count = count + 1 return name end
local function g() return count end
for n = -1, 5 do print(n, debug.getupvalue(f, n)) end
for n = -1, 4 do print("set", n, debug.setupvalue(f, n, 10 * n)) end
print(count, name, f(), g())
debug.setupvalue(g, 1, 100)
print(count, g())
print(select("#", debug.getupvalue(print, 1)))
local main = debug.getinfo(1, "f").func
local n = 0
while debug.getupvalue(main, n + 1) do n = n + 1 end
print("main upvalues", n, (debug.getupvalue(main, 1)), debug.getupvalue(main, 1) == "_ENV" and select(2, debug.getupvalue(main, 1)) == _ENV)
local stripped = load(string.dump(f, true))
for n = 1, 4 do local k, v = debug.getupvalue(stripped, n) print("stripped", n, k, type(v)) end
