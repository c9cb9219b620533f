-- insertion.lua: insertion sort of 1000 pseudo-random integers.
-- Like merge.lua and quick.lua it builds the same input with the same
-- generator (so that part costs the same in all three), sorts it, and
-- checks the result.  Run it with lua5.4, lraf run or lraf bench.
local N = 1000
local t, x = {}, 12345
for i = 1, N do
  x = (x * 1103515245 + 12345) % 2147483648   -- a fixed LCG: no math.random
  t[i] = x % 100000
end

local function insertion_sort(a)
  for i = 2, #a do
    local v, j = a[i], i - 1
    while j >= 1 and a[j] > v do
      a[j + 1] = a[j]
      j = j - 1
    end
    a[j + 1] = v
  end
end

insertion_sort(t)
for i = 2, N do assert(t[i - 1] <= t[i], "not sorted") end
print("insertion sort", N, t[1], t[N])
