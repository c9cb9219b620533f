-- bitops.lua: integer bit manipulation on 64-bit values.  CRC-32 with a
-- computed table, several popcount methods, bit reversal, rotations,
-- xorshift64 and a multiply-xorshift hash, Gray codes, a bitset of
-- 64-bit words (sieve, set algebra), sign extension, logical versus
-- arithmetic right shift, Morton (Z-order) interleaving, and the
-- conversion of integral floats in bitwise ops.

local function hex(x) return string.format("%016x", x) end

-- CRC-32 (reflected, polynomial 0xEDB88320)
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if c & 1 == 1 then c = 0xEDB88320 ~ (c >> 1) else c = c >> 1 end
  end
  crc_table[i] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do
    c = crc_table[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8)
  end
  return c ~ 0xFFFFFFFF
end
print("crc32", string.format("%08x %08x %08x", crc32(""), crc32("123456789"),
      crc32("The quick brown fox jumps over the lazy dog")))
local text = {}
for i = 1, 2000 do text[i] = string.char(32 + (i * 7919) % 95) end
text = table.concat(text)
local ctotal = 0
for i = 1, 200 do ctotal = ctotal ~ crc32(text:sub(i, i + 400)) end
print("crc32-many", string.format("%08x", ctotal))

-- popcount three ways
local function pop_loop(x)
  local n = 0
  while x ~= 0 do n = n + (x & 1); x = x >> 1 end
  return n
end
local function pop_kernighan(x)
  local n = 0
  while x ~= 0 do x = x & (x - 1); n = n + 1 end
  return n
end
local function pop_swar(x)
  x = x - ((x >> 1) & 0x5555555555555555)
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
  return (x * 0x0101010101010101) >> 56
end
-- xorshift64 generator
local state = 0x9E3779B97F4A7C15
local function xorshift()
  local x = state
  x = x ~ (x << 13)
  x = x ~ (x >> 7)
  x = x ~ (x << 17)
  state = x
  return x
end
local pagree, psum = 0, 0
for _ = 1, 3000 do
  local v = xorshift()
  local a, b, c = pop_loop(v), pop_kernighan(v), pop_swar(v)
  if a == b and b == c then pagree = pagree + 1 end
  psum = psum + a
end
print("popcount", pagree, psum, pop_swar(-1), pop_swar(math.mininteger), pop_swar(0))

-- bit reversal and rotation
local function reverse64(x)
  x = ((x >> 1) & 0x5555555555555555) | ((x & 0x5555555555555555) << 1)
  x = ((x >> 2) & 0x3333333333333333) | ((x & 0x3333333333333333) << 2)
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0F) | ((x & 0x0F0F0F0F0F0F0F0F) << 4)
  x = ((x >> 8) & 0x00FF00FF00FF00FF) | ((x & 0x00FF00FF00FF00FF) << 8)
  x = ((x >> 16) & 0x0000FFFF0000FFFF) | ((x & 0x0000FFFF0000FFFF) << 16)
  return (x >> 32) | (x << 32)
end
local function rotl(x, n) n = n & 63; return (x << n) | (x >> (64 - n)) end
local function rotr(x, n) return rotl(x, 64 - (n & 63)) end
print("reverse", hex(reverse64(1)), hex(reverse64(0x00000000000000F0)), hex(reverse64(reverse64(0x123456789ABCDEF0))))
print("rotate", hex(rotl(0x8000000000000001, 1)), hex(rotr(1, 4)), hex(rotl(0x0123456789ABCDEF, 68)),
      rotl(rotr(12345, 17), 17))

-- hashing with multiply-xorshift (splitmix-style finalizer)
local function mix(z)
  z = (z ~ (z >> 30)) * -4658895280553007687 -- 0xBF58476D1CE4E5B9 as signed
  z = (z ~ (z >> 27)) * -7723592293110705685 -- 0x94D049BB133111EB as signed
  return z ~ (z >> 31)
end
local buckets = {}
for i = 0, 15 do buckets[i] = 0 end
for i = 1, 4000 do local h = mix(i); buckets[h & 15] = buckets[h & 15] + 1 end
local bl = {}
for i = 0, 15 do bl[#bl + 1] = buckets[i] end
print("mix", hex(mix(0)), hex(mix(1)), table.concat(bl, " "))

-- Gray codes: successive codes differ in one bit; decode inverts encode
local function gray(n) return n ~ (n >> 1) end
local function ungray(g)
  local n = g
  local shift = 1
  while shift < 64 do n = n ~ (n >> shift); shift = shift << 1 end
  return n
end
local gok = true
for n = 0, 4095 do
  if ungray(gray(n)) ~= n then gok = false end
  if n > 0 and pop_kernighan(gray(n) ~ gray(n - 1)) ~= 1 then gok = false end
end
local gs = {}
for n = 0, 7 do gs[#gs + 1] = gray(n) end
print("gray", gok, table.concat(gs, ","), ungray(gray(123456789)))

-- a bitset of 64-bit words
local Bitset = {}
Bitset.__index = Bitset
local function bitset(n)
  local words = {}
  for i = 0, (n - 1) // 64 do words[i] = 0 end
  return setmetatable({w = words, n = n}, Bitset)
end
function Bitset:set(i) local k = i // 64; self.w[k] = self.w[k] | (1 << (i % 64)) end
function Bitset:clear(i) local k = i // 64; self.w[k] = self.w[k] & ~(1 << (i % 64)) end
function Bitset:test(i) return (self.w[i // 64] >> (i % 64)) & 1 == 1 end
function Bitset:count()
  local c = 0
  for k = 0, (self.n - 1) // 64 do c = c + pop_swar(self.w[k]) end
  return c
end
function Bitset:op(other, f)
  local r = bitset(self.n)
  for k = 0, (self.n - 1) // 64 do r.w[k] = f(self.w[k], other.w[k]) end
  return r
end
local N = 20000
local composite = bitset(N)
composite:set(0); composite:set(1)
for p = 2, math.floor(math.sqrt(N)) do
  if not composite:test(p) then
    for m = p * p, N - 1, p do composite:set(m) end
  end
end
local primes = bitset(N)
for i = 0, N - 1 do if not composite:test(i) then primes:set(i) end end
local odds = bitset(N)
for i = 1, N - 1, 2 do odds:set(i) end
local both = primes:op(odds, function(a, b) return a & b end)
local either = primes:op(odds, function(a, b) return a | b end)
local diff = primes:op(odds, function(a, b) return a & ~b end)
print("bitset", primes:count(), both:count(), either:count(), diff:count(), primes:test(19997), primes:test(19999))

-- sign extension, arithmetic shift, masks
local function sext(x, bits)
  local m = 1 << (bits - 1)
  x = x & ((1 << bits) - 1)
  return (x ~ m) - m
end
local function sar(x, n)
  if n >= 63 then return x < 0 and -1 or 0 end
  if x >= 0 then return x >> n end
  return ~(~x >> n)
end
print("sext", sext(0xFF, 8), sext(0x7F, 8), sext(0x8000, 16), sext(0x12345, 16), sext(-1, 12))
print("shifts", -16 >> 2 == 0x3FFFFFFFFFFFFFFC, sar(-16, 2), sar(-1, 10), sar(100, 3), sar(-100, 3), -100 // 8,
      1 << 63, 1 << 64, -1 >> 63, 5 << -1, 5 >> -1)

-- Morton codes: interleave the bits of two 16-bit coordinates
local function spread(v)
  v = v & 0xFFFF
  v = (v | (v << 8)) & 0x00FF00FF
  v = (v | (v << 4)) & 0x0F0F0F0F
  v = (v | (v << 2)) & 0x33333333
  v = (v | (v << 1)) & 0x55555555
  return v
end
local function compact(v)
  v = v & 0x55555555
  v = (v | (v >> 1)) & 0x33333333
  v = (v | (v >> 2)) & 0x0F0F0F0F
  v = (v | (v >> 4)) & 0x00FF00FF
  v = (v | (v >> 8)) & 0x0000FFFF
  return v
end
local mok, msum = true, 0
for x = 0, 255, 3 do
  for y = 0, 255, 5 do
    local m = spread(x) | (spread(y) << 1)
    if compact(m) ~= x or compact(m >> 1) ~= y then mok = false end
    msum = (msum + m) % 1000000007
  end
end
print("morton", mok, msum, spread(0xFFFF) | (spread(0) << 1))

-- conversions: integral floats take part in bitwise ops (strings do not:
-- the string metatable has no bitwise metamethods)
print("convert", 3.0 | 0, tonumber("12") & 10, math.tointeger("0x10") | 1, 2^62 | 0, ~0.0, 7 ~ 2.0, math.type(1.0 << 2))
