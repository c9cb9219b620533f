-- Permutations: recursive swap-based generation (counting), Heap's
-- algorithm, and lexicographic next-permutation, with checksums.

local count = 0
local function swap(a, i, j) a[i], a[j] = a[j], a[i] end

local function permute(a, n)
  count = count + 1
  if n ~= 0 then
    permute(a, n - 1)
    for i = n - 1, 1, -1 do
      swap(a, n, i)
      permute(a, n - 1)
      swap(a, n, i)
    end
  end
end

for _ = 1, 10 do
  local a = { 0, 0, 0, 0, 0, 0, 0, 0 }
  permute(a, 8)
end
print("swap permute calls", count)

-- Heap's algorithm (iterative), fold each permutation into a checksum
local function heap_perms(n, visit)
  local a, c = {}, {}
  for i = 1, n do a[i] = i; c[i] = 1 end
  visit(a)
  local i = 1
  while i <= n do
    if c[i] < i then
      if i % 2 == 1 then swap(a, 1, i) else swap(a, c[i], i) end
      visit(a)
      c[i] = c[i] + 1
      i = 1
    else
      c[i] = 1
      i = i + 1
    end
  end
end

local nperm, checksum = 0, 0
heap_perms(8, function(a)
  nperm = nperm + 1
  local h = 0
  for k = 1, #a do h = h * 9 + a[k] end
  checksum = (checksum + h * nperm) % 1000000007
end)
print("heap perms", nperm, "checksum", checksum)

-- lexicographic order; print the first few and the last
local function next_perm(a)
  local n = #a
  local i = n - 1
  while i >= 1 and a[i] >= a[i + 1] do i = i - 1 end
  if i < 1 then return false end
  local j = n
  while a[j] <= a[i] do j = j - 1 end
  swap(a, i, j)
  local l, r = i + 1, n
  while l < r do swap(a, l, r); l = l + 1; r = r - 1 end
  return true
end

local a = { "a", "b", "c", "d", "e", "f", "g" }
local k = 0
repeat
  k = k + 1
  if k <= 5 or k == 5040 then print(k, table.concat(a)) end
until not next_perm(a)
print("lexicographic total", k)
