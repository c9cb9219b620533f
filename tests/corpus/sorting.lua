-- sorting.lua: sorting algorithms written in Lua (insertion, shell,
-- merge, heap, quick with Hoare partition, counting and LSD radix)
-- checked against each other and table.sort; table.sort with custom
-- comparators (descending, multi-key, by string length then text);
-- stability of merge sort versus an index-tiebreak; sorting strings;
-- inversion counting by merge sort; k-th smallest by quickselect.

local seed = 4242
local function rnd(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed >> 12) % n
end
local function data(n, range)
  local t = {}
  for i = 1, n do t[i] = rnd(range) end
  return t
end
local function copy(t) local c = {} for i = 1, #t do c[i] = t[i] end return c end
local function is_sorted(t, lt)
  lt = lt or function(a, b) return a < b end
  for i = 2, #t do if lt(t[i], t[i - 1]) then return false end end
  return true
end
local function same(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end
local function checksum(t)
  local h = 0
  for i = 1, #t do h = (h * 31 + t[i] * (i % 5 + 1)) % 1000000007 end
  return h
end

local function insertion(t)
  for i = 2, #t do
    local v, j = t[i], i - 1
    while j >= 1 and t[j] > v do t[j + 1] = t[j]; j = j - 1 end
    t[j + 1] = v
  end
  return t
end

local function shell(t)
  local n, gap = #t, 1
  while gap < n // 3 do gap = gap * 3 + 1 end
  while gap >= 1 do
    for i = gap + 1, n do
      local v, j = t[i], i
      while j > gap and t[j - gap] > v do t[j] = t[j - gap]; j = j - gap end
      t[j] = v
    end
    gap = gap // 3
  end
  return t
end

local function merge_sort(t, lt)
  lt = lt or function(a, b) return a < b end
  local n = #t
  local src, dst = t, {}
  local width = 1
  while width < n do
    for lo = 1, n, 2 * width do
      local mid, hi = math.min(lo + width, n + 1), math.min(lo + 2 * width, n + 1)
      local i, j, k = lo, mid, lo
      while i < mid and j < hi do
        if lt(src[j], src[i]) then dst[k] = src[j]; j = j + 1
        else dst[k] = src[i]; i = i + 1 end
        k = k + 1
      end
      while i < mid do dst[k] = src[i]; i = i + 1; k = k + 1 end
      while j < hi do dst[k] = src[j]; j = j + 1; k = k + 1 end
    end
    src, dst = dst, src
    width = width * 2
  end
  if src ~= t then for i = 1, n do t[i] = src[i] end end
  return t
end

local function heap_sort(t)
  local n = #t
  local function sift(i, size)
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= size and t[l] > t[m] then m = l end
      if r <= size and t[r] > t[m] then m = r end
      if m == i then return end
      t[i], t[m] = t[m], t[i]
      i = m
    end
  end
  for i = n // 2, 1, -1 do sift(i, n) end
  for size = n, 2, -1 do
    t[1], t[size] = t[size], t[1]
    sift(1, size - 1)
  end
  return t
end

local function quick(t, lo, hi)
  lo, hi = lo or 1, hi or #t
  while lo < hi do
    local p = t[(lo + hi) // 2]
    local i, j = lo - 1, hi + 1
    while true do
      repeat i = i + 1 until t[i] >= p
      repeat j = j - 1 until t[j] <= p
      if i >= j then break end
      t[i], t[j] = t[j], t[i]
    end
    -- recurse into the smaller half, loop on the larger
    if j - lo < hi - j then quick(t, lo, j); lo = j + 1
    else quick(t, j + 1, hi); hi = j end
  end
  return t
end

local function counting(t, range)
  local counts = {}
  for v = 0, range - 1 do counts[v] = 0 end
  for i = 1, #t do counts[t[i]] = counts[t[i]] + 1 end
  local k = 1
  for v = 0, range - 1 do
    for _ = 1, counts[v] do t[k] = v; k = k + 1 end
  end
  return t
end

local function radix(t)
  local n = #t
  local out = {}
  for shift = 0, 24, 8 do
    local count = {}
    for b = 0, 256 do count[b] = 0 end
    for i = 1, n do local b = (t[i] >> shift) & 255; count[b + 1] = count[b + 1] + 1 end
    for b = 1, 256 do count[b] = count[b] + count[b - 1] end
    for i = 1, n do
      local b = (t[i] >> shift) & 255
      count[b] = count[b] + 1
      out[count[b]] = t[i]
    end
    t, out = out, t
  end
  return t
end

-- everything agrees on three kinds of input
local inputs = {
  {"random", data(1000, 100000), 100000},
  {"fewkeys", data(1000, 7), 7},
  {"sorted", (function() local t = {} for i = 1, 1000 do t[i] = i * 3 end return t end)(), 3001},
  {"reversed", (function() local t = {} for i = 1, 1000 do t[i] = 3000 - i * 3 end return t end)(), 3001},
}
for _, inp in ipairs(inputs) do
  local name, base, range = inp[1], inp[2], inp[3]
  local ref = copy(base)
  table.sort(ref)
  local results = {
    insertion(copy(base)), shell(copy(base)), merge_sort(copy(base)), heap_sort(copy(base)),
    quick(copy(base)), counting(copy(base), range), radix(copy(base)),
  }
  local agree = 0
  for _, r in ipairs(results) do if same(r, ref) then agree = agree + 1 end end
  print("sorts", name, agree, is_sorted(ref), checksum(ref), ref[1], ref[#ref])
end

-- comparators with table.sort
local nums = data(3000, 1000)
local desc = copy(nums)
table.sort(desc, function(a, b) return a > b end)
local byparity = copy(nums)
table.sort(byparity, function(a, b)
  if a % 2 ~= b % 2 then return a % 2 < b % 2 end
  return a < b
end)
local split = 0
for i = 1, #byparity do if byparity[i] % 2 == 1 then split = i; break end end
print("cmp", desc[1], desc[#desc], is_sorted(desc, function(a, b) return a > b end),
      split, byparity[split - 1], byparity[split], byparity[#byparity])

-- records: multi-key sort, and stability of merge sort
local names = {"ada", "bob", "cy", "dee", "eve", "flo", "gus", "hal"}
local recs = {}
for i = 1, 1500 do recs[i] = {name = names[rnd(#names) + 1], age = 20 + rnd(10), id = i} end
local stable = merge_sort(copy(recs), function(a, b) return a.age < b.age end)
local stable_ok = true
for i = 2, #stable do
  if stable[i - 1].age == stable[i].age and stable[i - 1].id > stable[i].id then stable_ok = false end
end
local multi = copy(recs)
table.sort(multi, function(a, b)
  if a.name ~= b.name then return a.name < b.name end
  if a.age ~= b.age then return a.age > b.age end
  return a.id < b.id
end)
local ids = {}
for i = 1, 5 do ids[i] = multi[i].name .. multi[i].age .. "#" .. multi[i].id end
print("records", stable_ok, stable[1].id, stable[#stable].id, table.concat(ids, " "))

-- strings: by length then alphabetically
local words = {}
for i = 1, 800 do
  local len = 1 + rnd(6)
  local cs = {}
  for k = 1, len do cs[k] = string.char(97 + rnd(26)) end
  words[i] = table.concat(cs)
end
local sw = copy(words)
table.sort(sw, function(a, b) if #a ~= #b then return #a < #b end return a < b end)
local plain = copy(words)
table.sort(plain)
print("strings", sw[1], sw[#sw], plain[1], plain[#plain], is_sorted(plain))

-- inversions by merge sort, checked by brute force on a prefix
local function inversions(t)
  local n = #t
  local a, tmp = copy(t), {}
  local inv = 0
  local width = 1
  while width < n do
    for lo = 1, n, 2 * width do
      local mid, hi = math.min(lo + width, n + 1), math.min(lo + 2 * width, n + 1)
      local i, j, k = lo, mid, lo
      while i < mid and j < hi do
        if a[j] < a[i] then tmp[k] = a[j]; j = j + 1; inv = inv + (mid - i)
        else tmp[k] = a[i]; i = i + 1 end
        k = k + 1
      end
      while i < mid do tmp[k] = a[i]; i = i + 1; k = k + 1 end
      while j < hi do tmp[k] = a[j]; j = j + 1; k = k + 1 end
    end
    a, tmp = tmp, a
    width = width * 2
  end
  return inv
end
local sample = data(400, 1000)
local brute = 0
for i = 1, #sample do
  for j = i + 1, #sample do if sample[i] > sample[j] then brute = brute + 1 end end
end
print("inversions", inversions(sample), brute, inversions(data(5000, 1000000)))

-- quickselect for the median and percentiles
local function select_kth(t, k)
  local a = copy(t)
  local lo, hi = 1, #a
  while true do
    if lo == hi then return a[lo] end
    local p = a[(lo + hi) // 2]
    local l, m, r = {}, 0, {}
    for i = lo, hi do
      local v = a[i]
      if v < p then l[#l + 1] = v elseif v > p then r[#r + 1] = v else m = m + 1 end
    end
    if k <= #l then
      for i = 1, #l do a[lo + i - 1] = l[i] end
      hi = lo + #l - 1
    elseif k <= #l + m then
      return p
    else
      k = k - #l - m
      for i = 1, #r do a[lo + i - 1] = r[i] end
      hi = lo + #r - 1
    end
  end
end
local big = data(5001, 1000000)
local ref = copy(big)
table.sort(ref)
print("select", select_kth(big, 2501) == ref[2501], select_kth(big, 1) == ref[1],
      select_kth(big, 5001) == ref[5001], select_kth(big, 500) == ref[500], ref[2501])
