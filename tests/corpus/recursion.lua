-- recursion.lua: plain, mutual, deep and tail recursion.  Ackermann on
-- small arguments, memoized and naive Fibonacci, mutual even/odd to 10000
-- levels, tail calls 100000 deep (constant stack), recursive tree
-- building and folding, recursive descent over nested tables, a
-- recursive flood fill and the McCarthy 91 function.

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local memo = {}
local function mfib(n)
  if n < 2 then return n end
  local v = memo[n]
  if v then return v end
  v = mfib(n - 1) + mfib(n - 2)
  memo[n] = v
  return v
end
print("fib", fib(20), mfib(80), mfib(90) == mfib(89) + mfib(88))

local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local acks = {}
for m = 0, 2 do
  for n = 0, 4 do acks[#acks + 1] = ack(m, n) end
end
print("ack", table.concat(acks, " "), ack(3, 3))

-- mutual recursion, deep (not tail calls: the result is used)
local is_even, is_odd
function is_even(n)
  if n == 0 then return true end
  local r = is_odd(n - 1)
  return r
end
function is_odd(n)
  if n == 0 then return false end
  local r = is_even(n - 1)
  return r
end
print("evenodd", is_even(10000), is_odd(9999), is_even(7777))

-- depth counting without tail calls
local function depth(n)
  if n == 0 then return 0 end
  return 1 + depth(n - 1)
end
print("depth", depth(10000), depth(15000))

-- tail calls: the stack does not grow
local function count_down(n, acc)
  if n == 0 then return acc end
  return count_down(n - 1, acc + n % 7)
end
local pong
local function ping(n)
  if n == 0 then return "ping" end
  if n % 3 == 0 then return ping(n - 1) end
  return pong(n - 1)
end
function pong(n) if n == 0 then return "pong" end return ping(n - 1) end
print("tail", count_down(100000, 0), ping(100000), ping(99999), pong(5))

-- McCarthy 91 and the Takeuchi function
local function m91(n)
  if n > 100 then return n - 10 end
  return m91(m91(n + 11))
end
local s91 = 0
for i = 1, 200 do s91 = s91 + m91(i) end
local function tak(x, y, z)
  if y >= x then return z end
  return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
end
print("m91", s91, m91(50), m91(101), "tak", tak(12, 8, 4))

-- build a balanced tree recursively and fold it
local function build(lo, hi)
  if lo > hi then return nil end
  local mid = (lo + hi) // 2
  return {key = mid, left = build(lo, mid - 1), right = build(mid + 1, hi)}
end
local function height(t)
  if not t then return 0 end
  local a, b = height(t.left), height(t.right)
  return 1 + (a > b and a or b)
end
local function inorder(t, out)
  if t then
    inorder(t.left, out)
    out[#out + 1] = t.key
    inorder(t.right, out)
  end
  return out
end
local tree = build(1, 2047)
local ord = inorder(tree, {})
local sorted = true
for i = 2, #ord do if ord[i - 1] >= ord[i] then sorted = false end end
print("tree", height(tree), #ord, sorted, ord[1], ord[#ord])

-- recursive deep copy and structural equality over nested tables
local function deepcopy(v)
  if type(v) ~= "table" then return v end
  local c = {}
  for i = 1, #v do c[i] = deepcopy(v[i]) end
  return c
end
local function equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  if #a ~= #b then return false end
  for i = 1, #a do if not equal(a[i], b[i]) then return false end end
  return true
end
local function nest(d, w)
  if d == 0 then return d * 10 + w end
  local t = {}
  for i = 1, w do t[i] = nest(d - 1, i) end
  return t
end
local big = nest(6, 4)
local cp = deepcopy(big)
print("copy", equal(big, cp), cp[4][4][3][2][1][1], equal(big, nest(6, 3)))

-- flood fill on a grid by recursion
local W, H = 60, 40
local grid = {}
local seed = 12345
for y = 1, H do
  grid[y] = {}
  for x = 1, W do
    seed = (seed * 1103515245 + 12345) % 2147483648
    grid[y][x] = (seed >> 16) % 100 < 38 and 1 or 0
  end
end
local function fill(x, y, mark)
  if x < 1 or y < 1 or x > W or y > H or grid[y][x] ~= 0 then return 0 end
  grid[y][x] = mark
  return 1 + fill(x + 1, y, mark) + fill(x - 1, y, mark)
           + fill(x, y + 1, mark) + fill(x, y - 1, mark)
end
local regions, largest, mark = 0, 0, 2
for y = 1, H do
  for x = 1, W do
    if grid[y][x] == 0 then
      local n = fill(x, y, mark)
      regions = regions + 1
      mark = mark + 1
      if n > largest then largest = n end
    end
  end
end
print("flood", regions, largest)

-- permutations of a string by recursion, counted and checksummed
local function perms(s, prefix, out)
  if #s == 0 then out[#out + 1] = prefix; return out end
  for i = 1, #s do
    perms(s:sub(1, i - 1) .. s:sub(i + 1), prefix .. s:sub(i, i), out)
  end
  return out
end
local ps = perms("abcdefg", "", {})
local h = 0
for i = 1, #ps do h = (h * 33 + ps[i]:byte(i % 7 + 1)) % 1000000007 end
print("perms", #ps, ps[1], ps[#ps], h)
