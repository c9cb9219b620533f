-- Fannkuch-redux: for every permutation of 1..n, repeatedly reverse the
-- first k elements, where k is the first element, until 1 comes first;
-- report the largest number of reversals and a checksum that adds the
-- reversal counts with alternating signs in generation order.
-- Permutations come from prefix rotations: rotating the first r elements
-- r times restores them, so an odometer of rotation counters visits all
-- n! orders (or stops after the first `limit` of them).  Integer array
-- shuffling in tight loops.

local function flips_of(perm, work, n)
  for i = 1, n do work[i] = perm[i] end
  local flips = 0
  local k = work[1]
  while k ~= 1 do
    local i, j = 1, k
    while i < j do
      work[i], work[j] = work[j], work[i]
      i = i + 1
      j = j - 1
    end
    flips = flips + 1
    k = work[1]
  end
  return flips
end

local function fannkuch(n, limit)
  local perm, work, left = {}, {}, {}
  for i = 1, n do
    perm[i] = i
    left[i] = i
  end
  local max_flips, checksum, index = 0, 0, 0
  while true do
    local f = flips_of(perm, work, n)
    if f > max_flips then max_flips = f end
    if index % 2 == 0 then checksum = checksum + f else checksum = checksum - f end
    index = index + 1
    if index == limit then return max_flips, checksum, index end
    -- advance the odometer: rotate the shortest prefix that still has
    -- rotations left, resetting the exhausted ones below it
    local r = 2
    while true do
      if r > n then return max_flips, checksum, index end
      local first = perm[1]
      for i = 1, r - 1 do perm[i] = perm[i + 1] end
      perm[r] = first
      left[r] = left[r] - 1
      if left[r] > 0 then break end
      left[r] = r
      r = r + 1
    end
  end
end

for n = 3, 9 do
  local max_flips, checksum, count = fannkuch(n, n == 9 and 120000 or nil)
  print(string.format("n=%d  permutations=%6d  max flips=%2d  checksum=%d",
                      n, count, max_flips, checksum))
end
