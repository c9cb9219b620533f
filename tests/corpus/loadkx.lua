-- Very large generated chunk: load() compiles a function whose table
-- constructor uses more than 2^17 distinct constants, so the items past
-- constant index 131071 can only be loaded with LOADKX + EXTRAARG (and the
-- SETLIST offsets need EXTRAARG too). Also checks results through
-- string.dump and a second, smaller function mixing LOADK and LOADKX.

local NCONST = 131072 + 300
local nums = {}
for i = 1, NCONST do nums[i] = i end
-- items "1.5,2.5,..." (non-integral floats are never LOADF/LOADI operands)
local src = "local x = ...\nlocal t = {" .. table.concat(nums, ".5,") .. ".5}\n" ..
  "local a, b = 7.75, 'tail string constant'\n" ..
  "local s = 0\nfor i = 1, #t, 1024 do s = s + t[i] * x end\n" ..
  "return s, #t, t[#t], a, b\n"
print("source bytes:", #src)

local f = assert(load(src, "=bigchunk"))
print("result:", f(1))
print("again:", f(2))

-- round trip through string.dump (binary chunk) must behave the same
local g = assert(load(string.dump(f), "=dumped", "b"))
print("dumped:", g(3))

-- expected value computed independently
local expect = 0
for i = 1, NCONST, 1024 do expect = expect + (i + 0.5) end
print("expected:", expect, NCONST, NCONST + 0.5)
