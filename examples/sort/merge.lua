-- merge.lua: top-down merge sort of the same 1000 integers (see
-- insertion.lua for the input).
local N = 1000
local t, x = {}, 12345
for i = 1, N do
  x = (x * 1103515245 + 12345) % 2147483648   -- a fixed LCG: no math.random
  t[i] = x % 100000
end

local function merge_sort(a, lo, hi, tmp)
  if hi - lo < 1 then return end
  local mid = (lo + hi) // 2
  merge_sort(a, lo, mid, tmp)
  merge_sort(a, mid + 1, hi, tmp)
  local i, j, k = lo, mid + 1, lo
  while i <= mid and j <= hi do
    if a[i] <= a[j] then tmp[k] = a[i]; i = i + 1
    else tmp[k] = a[j]; j = j + 1 end
    k = k + 1
  end
  for m = i, mid do tmp[k] = a[m]; k = k + 1 end
  for m = j, hi do tmp[k] = a[m]; k = k + 1 end
  for m = lo, hi do a[m] = tmp[m] end
end

merge_sort(t, 1, N, {})
for i = 2, N do assert(t[i - 1] <= t[i], "not sorted") end
print("merge sort", N, t[1], t[N])
