-- Metatables with every metamethod: __index/__newindex as functions and
-- tables (chained), __call, __concat, __eq, __lt, __le, __len, __unm,
-- all arithmetic and bitwise metamethods, __close with to-be-closed
-- variables (ordering, errors, break/return/goto), __tostring, __name,
-- __metatable protection, __gc finalizers, __mode weak tables, raw access.

local function clean(msg)
  return (tostring(msg):gsub("^.-:%-?%d+: ", ""):gsub(" %([%a ]+ '[^']*'%)$", ""))
end

-- a number-like wrapper with all arithmetic/bitwise metamethods ----------
local N = { __name = "Num" }
local function num(v) return setmetatable({ v = v }, N) end
local function val(x) if type(x) == "table" then return x.v end return x end
local log = {}
local function binop(name, f)
  N["__" .. name] = function(a, b)
    log[#log + 1] = name
    return num(f(val(a), val(b)))
  end
end
binop("add", function(a, b) return a + b end)
binop("sub", function(a, b) return a - b end)
binop("mul", function(a, b) return a * b end)
binop("div", function(a, b) return a / b end)
binop("mod", function(a, b) return a % b end)
binop("pow", function(a, b) return a ^ b end)
binop("idiv", function(a, b) return a // b end)
binop("band", function(a, b) return a & b end)
binop("bor", function(a, b) return a | b end)
binop("bxor", function(a, b) return a ~ b end)
binop("shl", function(a, b) return a << b end)
binop("shr", function(a, b) return a >> b end)
N.__unm = function(a, a2) log[#log + 1] = "unm"; assert(a == a2); return num(-a.v) end
N.__bnot = function(a, a2) log[#log + 1] = "bnot"; assert(a == a2); return num(~a.v) end
N.__eq = function(a, b) log[#log + 1] = "eq"; return a.v == b.v end
N.__lt = function(a, b) log[#log + 1] = "lt"; return val(a) < val(b) end
N.__le = function(a, b) log[#log + 1] = "le"; return val(a) <= val(b) end
N.__len = function(a) log[#log + 1] = "len"; return a.v * 2 end
N.__concat = function(a, b)
  log[#log + 1] = "concat"
  local function s(x) if type(x) == "table" then return "<" .. x.v .. ">" end return tostring(x) end
  return s(a) .. s(b)
end
N.__call = function(self, x, y) log[#log + 1] = "call"; return self.v + (x or 0) + (y or 0), "second" end
N.__tostring = function(a) return "Num(" .. tostring(a.v) .. ")" end
N.__index = function(t, k) log[#log + 1] = "index:" .. tostring(k); return k == "double" and t.v * 2 or nil end
N.__newindex = function(t, k, v) log[#log + 1] = "newindex:" .. tostring(k); rawset(t, k, v) end

local a, b = num(12), num(5)
local results = {
  val(a + b), val(a - b), val(a * b), val(a / b), val(a % b), val(a ^ num(2)), val(a // b),
  val(a & b), val(a | b), val(a ~ b), val(a << b), val(a >> 1), val(-a), val(~a),
  val(a + 1), val(1 + a), val(2 ^ b), val(100 // a),
}
for i, r in ipairs(results) do results[i] = tostring(r) end
print("arith:", table.concat(results, " "))
print("compare:", a == b, a == num(12), a ~= num(12), a < b, a <= b, b < a, b <= a, a < 20, 3 <= a, a > b, a >= num(12))
-- The concatenations run inside a function whose operands sit in its lowest
-- registers and whose unused locals reserve stack headroom, so no __concat
-- call has to grow the Lua stack: Debian's Lua 5.4.4 mishandles a stack
-- reallocation during a __concat call (wrong result, corrupted locals or a
-- crash), which would make the output depend on frame sizes.
local function concats(x, y)
  local r1, r2, r3, r4 = x .. y, "x" .. x, x .. 1, 1 .. x .. "!"
  local p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16
  local q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16
  return r1, r2, r3, r4
end
print("len/concat:", #a, concats(a, b))
print("call:", a(1, 2), a())
print("tostring:", tostring(a), tostring(num(1.5)))
print("index:", a.double, a.missing)
a.extra = 99
a.extra = 100 -- exists now: no __newindex
print("newindex:", rawget(a, "extra"))
print("log:", table.concat(log, ","))

-- equality: different metatables / primitive vs table never call __eq
log = {}
print("eq rules:", a == 12, num(1) == setmetatable({ v = 1 }, { __eq = function() return true end }), rawequal(a, a), rawequal(a, num(12)))
print("eq log:", table.concat(log, ","))

-- __index / __newindex as tables, chains --------------------------------
local Base = { greet = function(self) return "hello from " .. self.name end, kind = "base" }
Base.__index = Base
local Mid = setmetatable({ kind = "mid", shout = function(self) return self:greet():upper() end }, Base)
Mid.__index = Mid
local obj = setmetatable({ name = "obj" }, Mid)
print("chain:", obj:greet(), obj:shout(), obj.kind, rawget(obj, "kind"), obj.nothing)

local store = {}
local proxy = setmetatable({}, { __index = store, __newindex = store })
proxy.x = 1
proxy.y = 2
print("proxy:", rawget(proxy, "x"), store.x, proxy.y, next(proxy))

-- read-only table via __newindex function erroring
local ro = setmetatable({}, { __index = { k = "v" }, __newindex = function(t, k) error("read-only key " .. k, 2) end })
local ok, err = pcall(function() ro.k = 1 end)
print("read-only:", ok, clean(err), ro.k)

-- default values via __index function with memo
local calls = 0
local squares = setmetatable({}, { __index = function(t, k) calls = calls + 1; local v = k * k; rawset(t, k, v); return v end })
local s = 0
for i = 1, 10 do s = s + squares[i] + squares[i] end
print("memo index:", s, calls)

-- __len on a proxy, used by # and ipairs (ipairs respects __index)
local arr = setmetatable({}, { __len = function() return 4 end, __index = function(_, i) if i <= 4 then return i * 11 end end })
local parts = {}
for i, v in ipairs(arr) do parts[#parts + 1] = i .. "=" .. v end
print("len/ipairs:", #arr, rawlen(arr), table.concat(parts, " "))

-- __metatable protection
local prot = setmetatable({}, { __metatable = "locked" })
print("protected:", getmetatable(prot), pcall(setmetatable, prot, {}))

-- __name in error messages (no addresses printed)
local named = setmetatable({}, { __name = "MyType" })
print("name:", select(2, pcall(math.abs, named)))
print("string metatable:", getmetatable("").__index == string, ("abc"):upper(), #"abc")

-- __close ----------------------------------------------------------------
local events = {}
local function closer(name)
  return setmetatable({}, { __close = function(_, e)
    events[#events + 1] = name .. (e and ("[" .. clean(e) .. "]") or "")
  end })
end

do
  local x <close> = closer("x")
  local y <close> = closer("y")
  local z <const> = 5
  events[#events + 1] = "body" .. z
end
local function early(n)
  local c <close> = closer("ret" .. n)
  if n > 0 then return n * 2 end
  return -1
end
events[#events + 1] = "early=" .. early(3)
for i = 1, 3 do
  local c <close> = closer("loop" .. i)
  if i == 2 then break end
end
do
  local i = 0
  ::again::
  i = i + 1
  do
    local c <close> = closer("goto" .. i)
    if i < 2 then goto again end
  end
end
local ok2, err2 = pcall(function()
  local c1 <close> = closer("e1")
  local c2 <close> = closer("e2")
  error("boom")
end)
events[#events + 1] = "pcall=" .. tostring(ok2) .. ":" .. clean(err2)
local ok3, err3 = pcall(function()
  local bad <close> = setmetatable({}, { __close = function() error("close failed") end })
  local c <close> = closer("before-bad")
end)
events[#events + 1] = "closeerr=" .. clean(err3)
local ok4, err4 = pcall(function() local nc <close> = {} end)
events[#events + 1] = "noclose=" .. clean(err4)
do local nothing <close> = nil; local f <close> = false end
print("close:", table.concat(events, " "))

-- __gc: finalizers run on explicit full collection
local finalized = {}
local function make_garbage()
  for i = 1, 5 do setmetatable({}, { __gc = function() finalized[#finalized + 1] = i end }) end
end
make_garbage()
collectgarbage("collect")
collectgarbage("collect")
table.sort(finalized)
print("gc:", table.concat(finalized, ","))

-- __mode weak table
local weak = setmetatable({}, { __mode = "k" })
local keep = {}
local function fill()
  for i = 1, 10 do
    local k = {}
    weak[k] = i
    if i % 2 == 0 then keep[#keep + 1] = k end
  end
end
fill()
collectgarbage("collect")
local wsum, wcount = 0, 0
for _, v in pairs(weak) do wsum = wsum + v; wcount = wcount + 1 end
print("weak:", wcount, wsum)

-- stress: vector class with arithmetic metamethods
local Vec = {}
Vec.__index = Vec
local function vec(x, y) return setmetatable({ x = x, y = y }, Vec) end
Vec.__add = function(p, q) return vec(p.x + q.x, p.y + q.y) end
Vec.__mul = function(p, k) return vec(p.x * k, p.y * k) end
Vec.__eq = function(p, q) return p.x == q.x and p.y == q.y end
Vec.__lt = function(p, q) return p.x * p.x + p.y * p.y < q.x * q.x + q.y * q.y end
Vec.__len = function(p) return math.abs(p.x) + math.abs(p.y) end
function Vec:rot() return vec(-self.y, self.x) end
local acc, hits = vec(0, 0), 0
for i = 1, 40000 do
  local v = vec(i % 7, i % 11) * 3 + vec(1, -1):rot()
  acc = acc + v
  if v < vec(5, 5) then hits = hits + 1 end
  if v == vec(4, 1) then hits = hits + 100 end
  hits = hits + #v % 3
end
print("stress:", acc.x, acc.y, hits)
