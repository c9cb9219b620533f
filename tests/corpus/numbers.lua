-- Integer/float semantics: wraparound at maxinteger/mininteger, floor
-- division and modulo with negative and float operands, division by zero,
-- float->int conversions, int/float comparisons, bitwise ops and shifts,
-- string<->number coercions, tonumber with bases, math library edges.

local function clean(msg)
  -- drop "chunk:line: " position prefix so output does not depend on paths
  -- and the " (local 'x')" variable info, which depends on bytecode shape
  return (tostring(msg):gsub("^.-:%-?%d+: ", ""):gsub(" %([%a ]+ '[^']*'%)$", ""))
end
local function try(f, ...)
  local ok, r = pcall(f, ...)
  if ok then return "ok " .. tostring(r) end
  return "error: " .. clean(r)
end

local maxi, mini = math.maxinteger, math.mininteger
print("wrap:", maxi + 1 == mini, mini - 1 == maxi, maxi * 2, -mini == mini, mini // -1, mini % -1)
print("abs mini:", math.abs(mini), math.type(math.abs(mini)))

-- floor division / modulo sign rules
local pairs_ = { { 7, 3 }, { -7, 3 }, { 7, -3 }, { -7, -3 }, { 7.5, 2 }, { -7.5, 2 }, { 7, 2.5 }, { 5.25, -0.5 } }
for _, p in ipairs(pairs_) do
  local a, b = p[1], p[2]
  print(string.format("%s // %s = %s   %s %% %s = %s   %s / %s = %s", a, b, a // b, a, b, a % b, a, b, a / b))
end
print("div by zero (float):", 1 / 0, -1 / 0, 1.0 // 0, -1 // 0.0, 5 % math.huge, -5 % math.huge)
local nan = 0 / 0
print("nan:", nan ~= nan, nan == nan, math.type(nan), 3 % -math.huge)
print("int div by zero:", try(function() return 1 // 0 end))
print("int mod by zero:", try(function() return 1 % 0 end))

-- float -> int conversions
print("tointeger:", math.tointeger(3.0), math.tointeger(3.5), math.tointeger(2^53), math.tointeger(2^63), math.tointeger(-2^63))
print("floor/ceil:", math.floor(3.7), math.ceil(-3.7), math.floor(-0.0), math.type(math.floor(2.0^70)), math.floor(-3.5))
print("fmod:", math.fmod(-7, 2), math.fmod(7, -2), math.fmod(-7.5, 2), math.type(math.fmod(7, 2)))
print("fmod zero:", try(math.fmod, 7, 0), math.fmod(7, 0.0) ~= math.fmod(7, 0.0))
print("modf:", math.modf(3.75), math.modf(-3.75), math.modf(math.huge))
print("float keys:", ({ [1] = "int" })[1.0], ({ [2.0] = "float-normalised" })[2])
print("string.format %d:", string.format("%d", 3.0), try(string.format, "%d", 3.5))
print("for with float exactness:", 2^53 == 2^53 + 1, math.ult(1, -1), math.ult(-1, 1))

-- comparisons int vs float
print("compare:", 1 == 1.0, maxi < maxi + 0.0, maxi + 0.0 == maxi, mini == mini + 0.0, 2^63 > maxi, -2^63 >= mini, 1 < 1.5, -0.0 == 0)
print("math.max/min types:", math.max(1, 2.0), math.min(1, 2.0), math.type(math.max(3, 2.5)))

-- bitwise
print("bits:", 0xF0 | 0x0F, 0xFF & 0x0F, 0xFF ~ 0x0F, ~0, 1 << 63, 1 << 64, -1 >> 1, 1 << -1, 2 >> -2, -1 >> 63)
print("bits on floats:", 3.0 | 0, 2^31 | 0, try(function() return 3.5 | 0 end))
print("bits on strings:", try(function() return "3" | 0 end))
print("hex literals:", 0x7fffffffffffffff == maxi, 0xffffffffffffffff, 0x10p2, 0xA.8p0)

-- string <-> number coercions
print("coerce:", "10" + 5, "3.0" + 1, "0x10" * 1, 10 .. 20, 1.5 .. "", -0.0 .. "", "2" ^ "3", -"2", "10" // "3", "7" % "2")
print("tostring:", tostring(1e15), tostring(1e16), tostring(2^63), tostring(-2^63), tostring(123456789012), 1e100, 0.1, 1/3)
print("concat ints/floats:", 1 .. "", 1.0 .. "", 100000000000000 .. "", 2^24 .. "")
print("coerce error:", try(function() return "abc" + 1 end))
print("compare error:", try(function() return 1 < "2" end))

-- tonumber
local tn = { "10", "  0x1p4  ", "1e2", "0x", "", "1 2", "9223372036854775807", "9223372036854775808",
             "-9223372036854775808", ".5", "5.", "0x.8", "inf", "nan", "1e", "  -7  " }
local res = {}
for i, s in ipairs(tn) do res[i] = tostring(tonumber(s)) .. "(" .. tostring(math.type(tonumber(s))) .. ")" end
print("tonumber:", table.concat(res, " "))
print("tonumber base:", tonumber("z", 36), tonumber("ff", 16), tonumber("8", 8), tonumber("777", 8), tonumber("-101", 2), tonumber("7fffffffffffffff", 16))
print("math.type:", math.type(1), math.type(1.0), math.type("1"), math.type(nil))

-- exponent and misc math
print("pow:", 2 ^ 10, 2 ^ -1, (-8) ^ (1 / 3) ~= (-8) ^ (1 / 3), 10 ^ 0, 0 ^ 0)
print("sqrt/exp/log:", math.sqrt(16), math.exp(0), math.log(8, 2), math.log(100, 10), math.log(1))
print("pi/huge:", string.format("%.10f", math.pi), math.huge, -math.huge, math.huge // 1)
print(string.format("format: %5.2f|%-6d|%+d|%x|%X|%o|%e|%g|%g|%a", 3.14159, 42, 7, 255, 255, 8, 12345.678, 1e20, 0.0001, 1.0))
print(string.format("%q|%q|%q", 1 / 3, mini, 2^63))

-- stress: mixed arithmetic checksum
local h = 0
local x, f = 1, 0.5
for i = 1, 1000000 do
  x = (x * 6364136223846793005 + 1442695040888963407) -- wraps
  local m = x % 1000
  f = f * 1.0000001 + m / 1024
  h = h ~ (x >> 17) ~ (m // 7) ~ math.floor(f) % 65536
  if i % 250000 == 0 then print(i, h, m, string.format("%.6f", f)) end
end
