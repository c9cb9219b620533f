-- Sieve of Eratosthenes (boolean table), plus an odd-only bit sieve using
-- integer bit operations, and a segmented count.

local function sieve(n)
  local composite = {}
  for i = 1, n do composite[i] = false end
  local count = 0
  for i = 2, n do
    if not composite[i] then
      count = count + 1
      for k = i * i, n, i do composite[k] = true end
    end
  end
  return count
end

local function bit_sieve(n)
  -- bit j of words represents odd number 2*j+3
  local m = (n - 1) // 2
  local words = {}
  for w = 0, m // 64 do words[w] = 0 end
  local count = n >= 2 and 1 or 0
  for j = 0, m - 1 do
    if words[j >> 6] & (1 << (j & 63)) == 0 then
      count = count + 1
      local p = 2 * j + 3
      local k = (p * p - 3) // 2
      while k < m do
        words[k >> 6] = words[k >> 6] | (1 << (k & 63))
        k = k + p
      end
    end
  end
  return count
end

local function primes_up_to(n)
  local c, out = {}, {}
  for i = 2, n do
    if not c[i] then
      out[#out + 1] = i
      for k = i * i, n, i do c[k] = true end
    end
  end
  return out
end

for _, n in ipairs({ 10, 100, 1000, 10000, 100000, 300000 }) do
  print(n, sieve(n), bit_sieve(n))
end
local p = primes_up_to(120)
print(table.concat(p, " "))
local sum = 0
for _, v in ipairs(primes_up_to(50000)) do sum = sum + v end
print("sum of primes below 50000:", sum)
