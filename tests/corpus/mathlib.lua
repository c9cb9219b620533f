-- mathlib.lua: the math library.  Integer versus float results of
-- floor/ceil/abs/max/min/fmod/modf/tointeger, math.type, ult, huge/pi,
-- maxinteger/mininteger, and sqrt/exp/log/sin/cos/atan rounded before
-- printing so the output does not depend on the last bits of libm.

local function show(v)
  -- type-tagged rendering: integers and floats look different
  local mt = math.type(v)
  if mt == "integer" then return "i:" .. string.format("%d", v) end
  if mt == "float" then
    if v ~= v then return "f:nan" end
    if v == math.huge then return "f:inf" end
    if v == -math.huge then return "f:-inf" end
    return "f:" .. string.format("%.6g", v)
  end
  return tostring(v)
end

local function line(label, ...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = show((select(i, ...))) end
  print(label, table.concat(parts, " "))
end

-- floor and ceil: integers in, integers out; floats become integers when
-- they fit, stay floats otherwise
line("floor", math.floor(7), math.floor(-7), math.floor(2.5), math.floor(-2.5),
     math.floor(1e100) == 1e100, math.floor(-0.0))
line("ceil", math.ceil(7), math.ceil(2.1), math.ceil(-2.1), math.ceil(-0.5),
     math.ceil(2^70) == 2^70)
line("abs", math.abs(-3), math.abs(3), math.abs(-2.5), math.abs(math.mininteger),
     math.abs(-0.0))
line("maxmin", math.max(1, 2.5, -3), math.min(1, 2.5, -3), math.max(4),
     math.max(2, 2.0), math.max(2.0, 2), math.min(-0.0, 0))
line("fmod", math.fmod(7, 3), math.fmod(-7, 3), math.fmod(7, -3), math.fmod(7.5, 2),
     math.fmod(-7.5, 2), math.fmod(math.mininteger, -1), math.fmod(1, math.huge))
line("modf", math.modf(3.7))
line("modf", math.modf(-3.7))
line("modf", math.modf(5))
line("modf", math.modf(math.huge))
line("modf", math.modf(-math.huge))
line("toint", math.tointeger(3.0), math.tointeger(3.5), math.tointeger("8"),
     math.tointeger(2^63), math.tointeger(-2^63), math.tointeger(7))
line("type", math.type(1), math.type(1.0), math.type("1"), math.type({}))
line("ult", math.ult(1, 2), math.ult(-1, 2), math.ult(2, -1), math.ult(0, math.mininteger))
line("limits", math.maxinteger, math.mininteger, math.maxinteger + 1 == math.mininteger,
     math.huge, -math.huge, math.pi)
line("pi", math.floor(math.pi * 1e6), math.pi - 3.141592653589793 == 0)

-- rounding-safe printing of transcendental functions
local function r6(x) return math.floor(x * 1e6 + 0.5) end
local acc = {}
for i = 1, 12 do
  acc[#acc + 1] = string.format("%d:%d/%d/%d", i, r6(math.sqrt(i)), r6(math.log(i)),
                                r6(math.exp(i / 4)))
end
print("sle", table.concat(acc, " "))
line("sqrt", math.sqrt(16), math.sqrt(2) * math.sqrt(2) - 2 < 1e-12, math.sqrt(-1) ~= math.sqrt(-1))
line("log", r6(math.log(8, 2)), r6(math.log(1000, 10)), r6(math.log(81, 3)),
     math.log(0), r6(math.log(math.exp(2))))
line("exp", math.exp(0), r6(math.exp(1)))

-- trigonometry: a table of angles and identities, rounded
local trig = {}
for deg = 0, 360, 30 do
  local a = math.rad(deg)
  local s, c = math.sin(a), math.cos(a)
  trig[#trig + 1] = string.format("%d:%d,%d", deg, r6(s), r6(c))
  assert(math.abs(s * s + c * c - 1) < 1e-12)
end
print("trig", table.concat(trig, " "))
line("atan", r6(math.atan(1)), r6(math.atan(1, -1)), r6(math.atan(-1, -1)),
     r6(math.atan(0, -1)), r6(math.deg(math.atan(1, 0))))
line("deg", math.deg(math.pi), math.rad(180) == math.pi)

-- integer/float arithmetic through the library
local sum_i, sum_f = 0, 0.0
for i = 1, 150000 do
  sum_i = sum_i + math.floor(i / 7) + math.ceil(i / 11) + math.abs(1000 - i) % 13
  sum_f = sum_f + math.fmod(i * 0.25, 3) + select(2, math.modf(i / 8))
end
line("sums", sum_i, sum_f)

-- integer square root by Newton's method, checked against math.sqrt
local function isqrt(n)
  if n < 2 then return n end
  local x = n
  local y = (x + n // x) // 2
  while y < x do
    x = y
    y = (x + n // x) // 2
  end
  return x
end
local mism, checksum = 0, 0
for n = 0, 200000, 7 do
  local r = isqrt(n)
  if r ~= math.floor(math.sqrt(n)) then mism = mism + 1 end
  checksum = (checksum * 31 + r) % 1000003
end
line("isqrt", mism, checksum, isqrt(1 << 62), isqrt(10 ^ 12 // 1))

-- gcd/lcm and modular power with integers only
local function gcd(a, b)
  while b ~= 0 do a, b = b, a % b end
  return math.abs(a)
end
local function powmod(b, e, m)
  local r = 1
  b = b % m
  while e > 0 do
    if e & 1 == 1 then r = r * b % m end
    b = b * b % m
    e = e >> 1
  end
  return r
end
local g = 0
for a = 1, 300 do
  for b = 1, 300, 7 do g = g + gcd(a * 6, b * 4) end
end
line("gcd", g, gcd(-48, 18), gcd(0, 0), powmod(2, 1000, 1000007), powmod(3, 12345, 65537))

-- float -> string -> float round trips with %.17g
local bad = 0
local x = 0.1
for _ = 1, 500 do
  x = x * 1.37 + 0.001
  if x > 1e10 then x = x / 1e9 end
  if tonumber(string.format("%.17g", x)) ~= x then bad = bad + 1 end
end
line("roundtrip", bad)

-- integer conversions at the edges
line("edges", math.tointeger(2^53), 2^53 == 2^53 + 1, math.floor(-2^63) == math.mininteger,
     pcall(math.floor, "x"), 3 // 0.0, -3 // 0.0, 3 % math.huge, -3 % math.huge)
line("intdiv", 7 // 2, -7 // 2, 7 // -2, 7.0 // 2, -7 % 3, 7 % -3, -7.5 % 2)

-- Simpson's rule on a few integrands, printed to 6 digits
local function simpson(f, a, b, n)
  local h = (b - a) / n
  local s = f(a) + f(b)
  for i = 1, n - 1 do
    s = s + (i % 2 == 1 and 4 or 2) * f(a + i * h)
  end
  return s * h / 3
end
line("simpson", r6(simpson(math.sin, 0, math.pi, 2000)),
     r6(simpson(math.exp, 0, 1, 2000)), r6(simpson(function(t) return 1 / t end, 1, math.exp(1), 2000)),
     r6(simpson(function(t) return math.sqrt(1 - t * t) end, -1, 1, 4000) * 2))
