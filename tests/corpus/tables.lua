-- Table library and table semantics: insert/remove at positions, move
-- (overlapping, to another table), concat with separators and ranges,
-- sort (default, comparator, stability-independent checks, invalid order
-- function detection), unpack, # on sequences, next/pairs on arrays,
-- integer/float key normalisation, nested constructors, rawlen/rawequal.

local function show(t, i, j) return table.concat(t, ",", i or 1, j or #t) end

local t = { 1, 2, 3 }
table.insert(t, 4)
table.insert(t, 1, 0)
table.insert(t, 3, 1.5)
print("insert:", show(t), #t)
print("remove:", table.remove(t), table.remove(t, 1), table.remove(t, 2), show(t))
local e = {}
print("remove empty:", table.remove(e), #e, table.remove(e, 0), table.remove({ n = 1 }, 1))
print("insert errors:", pcall(table.insert, { 1, 2 }, 5, 1), pcall(table.insert, {}, 1, 2, 3))

-- move
local m = { 1, 2, 3, 4, 5 }
table.move(m, 1, 3, 3)
print("move overlap right:", show(m))
m = { 1, 2, 3, 4, 5 }
table.move(m, 3, 5, 1)
print("move overlap left:", show(m))
local dst = table.move({ "a", "b", "c" }, 1, 3, 2, { "x" })
print("move other:", show(dst))
print("move empty:", #table.move({ 1 }, 2, 1, 1, {}))

-- concat
print("concat:", table.concat({}), table.concat({ "a" }, "-"), table.concat({ 1, 2.5, "x" }, ", "), table.concat({ 1, 2, 3, 4 }, "", 2, 3))
print("concat error:", pcall(table.concat, { 1, {}, 3 }))

-- sort
local nums = {}
local seed = 7
for i = 1, 200 do seed = (seed * 48271) % 2147483647; nums[i] = seed % 1000 end
table.sort(nums)
local sorted = true
for i = 2, #nums do if nums[i - 1] > nums[i] then sorted = false end end
print("sort default:", sorted, nums[1], nums[100], nums[200])
table.sort(nums, function(a, b) return a > b end)
print("sort desc:", nums[1], nums[200])
local recs = {}
for i = 1, 50 do recs[i] = { id = i, key = (i * 7) % 10, name = "r" .. i } end
table.sort(recs, function(a, b)
  if a.key ~= b.key then return a.key < b.key end
  return a.id < b.id
end)
local ids = {}
for i = 1, 10 do ids[i] = recs[i].id end
print("sort records:", table.concat(ids, " "))
local strs = { "banana", "Apple", "cherry", "apple", "Banana", "10", "9", "" }
table.sort(strs)
print("sort strings:", table.concat(strs, "|"))
print("sort mixed error:", pcall(table.sort, { 1, "x", 2 }))
local okbad = pcall(table.sort, { 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1 }, function(a, b) return true end)
print("sort invalid order fn raises:", okbad == false)

-- unpack / pack
print("unpack:", table.unpack({ 1, 2, 3 }), table.unpack({ 1, 2, 3 }, 2), table.unpack({ 1, 2, 3 }, 2, 3))
local p = table.pack()
print("pack empty:", p.n, #p)

-- length of sequences, array vs hash parts
local seq = {}
for i = 1, 100 do seq[i] = i end
for i = 100, 51, -1 do seq[i] = nil end
print("length after shrink:", #seq)
local holes = { 1, 2, 3, nil, 5 }
print("constructor with trailing value:", holes[5], select("#", table.unpack(holes, 1, 5)))

-- key normalisation
local k = {}
k[1] = "int"; k[1.0] = "float one"; k[2^53] = "big"; k["1"] = "string"
print("keys:", k[1], k["1"], k[2^53 | 0], math.type(next({ [3.0] = true })))
k[-0.0] = "negzero"
print("zero key:", k[0])

-- next / pairs on arrays are ordered; count string keys separately
local mixed = { 10, 20, 30, x = 1, y = 2, z = 3 }
local arr_part, str_keys = {}, {}
for key, v in pairs(mixed) do
  if math.type(key) == "integer" then arr_part[key] = v else str_keys[#str_keys + 1] = key end
end
table.sort(str_keys)
print("pairs:", show(arr_part), table.concat(str_keys, ","), next({}), rawlen({ 1, 2 }), rawlen("abc"))

-- nested constructors and computed keys
local nested = { { 1, { 2, { 3, { 4 } } } }, [10] = { a = { b = { c = "deep" } } }, ["key" .. 1] = true, [1 + 1] = "two" }
print("nested:", nested[1][2][2][2][1], nested[10].a.b.c, nested.key1, nested[2])
local fnt = { f = function(x) return x + 1 end, [true] = "yes", [false] = "no" }
print("non-string keys:", fnt.f(1), fnt[true], fnt[false], fnt[1 == 1])

-- tables as sets, clearing while traversing (assigning nil is allowed)
local set = {}
for i = 1, 20 do set[i * 3 % 17] = true end
local cnt = 0
for key in pairs(set) do set[key] = nil; cnt = cnt + 1 end
print("clear during traversal:", cnt, next(set))

-- queue / stack built with table functions
local q = {}
for i = 1, 10 do table.insert(q, i) end
local out = {}
local pushed = 0
while #q > 0 do
  out[#out + 1] = table.remove(q, 1)
  if #q % 3 == 0 and #q > 0 and pushed < 3 then table.insert(q, 1, -#q); pushed = pushed + 1 end
end
print("queue:", table.concat(out, " "))

-- stress: sorting and table churn
local h = 0
for round = 1, 220 do
  local a = {}
  for i = 1, 400 do seed = (seed * 48271) % 2147483647; a[i] = seed % 10007 end
  table.sort(a, function(x, y) return x % 97 < y % 97 or (x % 97 == y % 97 and x < y) end)
  for i = 1, 40 do table.insert(a, (i * 13) % #a + 1, i) end
  for i = 1, 40 do table.remove(a, (i * 7) % #a + 1) end
  table.move(a, 1, 100, 200)
  for i = 1, #a, 17 do h = (h * 31 + a[i]) % 1000000007 end
  h = (h + #table.concat(a, ",", 1, 50)) % 1000000007
end
print("stress:", h)
