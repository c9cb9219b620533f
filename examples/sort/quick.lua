-- quick.lua: quicksort (Hoare partition, middle pivot) of the same 1000
-- integers (see insertion.lua for the input).
local N = 1000
local t, x = {}, 12345
for i = 1, N do
  x = (x * 1103515245 + 12345) % 2147483648   -- a fixed LCG: no math.random
  t[i] = x % 100000
end

local function quick_sort(a, lo, hi)
  while lo < hi do
    local p = a[(lo + hi) // 2]
    local i, j = lo, hi
    while i <= j do
      while a[i] < p do i = i + 1 end
      while a[j] > p do j = j - 1 end
      if i <= j then
        a[i], a[j] = a[j], a[i]
        i, j = i + 1, j - 1
      end
    end
    -- recurse into the smaller side, loop on the larger one
    if j - lo < hi - i then quick_sort(a, lo, j); lo = i
    else quick_sort(a, i, hi); hi = j end
  end
end

quick_sort(t, 1, N)
for i = 2, N do assert(t[i - 1] <= t[i], "not sorted") end
print("quick sort", N, t[1], t[N])
