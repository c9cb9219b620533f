-- Varargs and multiple results: select('#') vs #, select with negative
-- index, table.pack/unpack with explicit ranges and nils, ... in the
-- middle vs at the end of argument lists and constructors, adjusting
-- results in assignments, vararg main chunk, and tail calls with varargs.

local function count(...) return select("#", ...) end
local function id(...) return ... end
local function three() return 1, 2, 3 end
local function none() end

print("counts:", count(), count(nil), count(nil, nil), count(id(1, nil, 3, nil)))
print("select:", select(2, "a", "b", "c"), select(-1, "a", "b", "c"), select("#", three()))
print("middle vs end:", count(three(), three()), count(three(), 10), count(10, three()))
print("paren truncates:", count((three())), count((none())))

local t = { three(), three() }
print("constructor:", #t, table.concat(t, ","))
local t2 = { three(), (three()) }
print("constructor2:", #t2)
local t3 = { id(), n = 1 }
print("constructor empty open:", #t3)

local p = table.pack(1, nil, 3, nil)
print("pack:", p.n, p[1], p[2], p[3], p[4])
print("unpack range:", table.unpack({ 1, 2, 3, 4, 5 }, 2, 4))
print("unpack nils:", count(table.unpack({ n = 3 }, 1, 3)))
print("unpack empty:", count(table.unpack({}, 1, 0)))

-- adjustment in assignments
local a, b, c, d = three()
print("adjust:", a, b, c, d)
local x, y = none()
print("adjust nil:", x, y)
local q, r, s = 0, three()
print("adjust tail:", q, r, s)
local u, v = three(), 20
print("adjust mid:", u, v)

-- varargs forwarded through several layers
local function layer3(...) return count(...), ... end
local function layer2(...) return layer3(...) end
local function layer1(...) return layer2(0, ...) end
print("forward:", layer1(nil, "x", nil))

-- vararg function with fixed params
local function fixed(a1, a2, ...)
  local rest = { ... }
  return a1, a2, #rest, select("#", ...)
end
print("fixed:", fixed(1))
print("fixed:", fixed(1, 2, 3, 4, 5))

-- sum via select in a loop
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    s = s + (v or 0)
  end
  return s
end
print("sum:", sum(1, 2, nil, 4), sum())

-- string.format with open call
print(string.format("%d-%d-%d", three()))
print(string.format("%s|%s", id("left", "right", "ignored")))

-- method call with varargs and tail calls
local obj = { base = 100 }
function obj:add(...)
  local s = self.base
  for _, v in ipairs({ ... }) do s = s + v end
  return s
end
local function tail(...) return obj:add(...) end
print("method:", tail(1, 2, 3), obj:add())

-- deep tail recursion passing varargs along
local function drop(n, ...)
  if n == 0 then return select("#", ...), ... end
  return drop(n - 1, select(2, ...))
end
print("drop:", drop(3, "a", "b", "c", "d", "e"))
local function tailcount(n, acc) if n == 0 then return acc end return tailcount(n - 1, acc + 1) end
print("tail depth:", tailcount(100000, 0))

-- main-chunk varargs
print("chunk varargs:", select("#", ...))

-- load()ed chunks receive varargs too
local chunk = load("local a, b = ... ; return b, a, select('#', ...)")
print("load varargs:", chunk("first", "second", "third"))

-- stress: lots of vararg traffic
local acc = 0
for i = 1, 150000 do
  local pk = table.pack(id(i, i + 1, nil, i + 3))
  acc = acc + pk.n + sum(table.unpack(pk, 1, pk.n)) + count(three(), three())
  acc = acc % 1000000007
end
print("stress:", acc)
