-- iterators.lua: the generic for.  Stateless iterators (own ipairs-like
-- and range functions with explicit state and control values), stateful
-- closure iterators, iterators returning several values, ipairs stopping
-- at the first nil and honouring __index, pairs honouring __pairs, next
-- directly, iterator composition (map/filter/zip/take/chain), gmatch and
-- utf8.codes, and a to-be-closed fourth value closed on normal exit and
-- on break.

-- stateless: state and control variable carry everything
local function range_step(limit, i)
  i = i + 3
  if i <= limit then return i, i * i end
end
local function range3(n) return range_step, n, 0 end
local acc = 0
for i, sq in range3(30) do acc = acc + i + sq end
print("range3", acc)

local function my_inext(t, i)
  i = i + 1
  local v = t[i]
  if v ~= nil then return i, v end
end
local function my_ipairs(t) return my_inext, t, 0 end
local holes = {10, 20, 30, nil, 50}
local c1, c2 = 0, 0
for _, v in my_ipairs(holes) do c1 = c1 + v end
for _, v in ipairs(holes) do c2 = c2 + v end
print("ipairs-nil", c1, c2, #{1, 2, 3})

-- ipairs goes through __index; pairs through __pairs
local proxy = setmetatable({}, {__index = function(_, k) if k <= 6 then return k * 11 end end})
local ps = {}
for i, v in ipairs(proxy) do ps[#ps + 1] = i .. "=" .. v end
print("ipairs-index", table.concat(ps, " "))
-- an ordered map: __pairs walks the keys in insertion order (a sort of
-- pairs' keys would do work that depends on the randomly seeded hash order)
local function ordered_map()
  local keys, vals = {}, {}
  return setmetatable({}, {
    __newindex = function(_, k, v)
      if vals[k] == nil then keys[#keys + 1] = k end
      vals[k] = v
    end,
    __index = vals,
    __pairs = function()
      local i = 0
      return function()
        i = i + 1
        local k = keys[i]
        if k ~= nil then return k, vals[k] end
      end
    end,
  })
end
local ordered = ordered_map()
ordered.c = 3; ordered.a = 1; ordered.b = 2; ordered.c = 30
local op = {}
for k, v in pairs(ordered) do op[#op + 1] = k .. v end
print("__pairs", table.concat(op, ","))

-- next by hand, over an array part and a hash part (only order-free
-- results are printed: string keys are hashed with a random seed)
local mixed = {1, 2, 3, x = 4, y = 5, [10] = 6}
local seen, sum, n = {}, 0, 0
local k, v = next(mixed)
while k ~= nil do
  seen[k] = true
  sum = sum + v
  n = n + 1
  k, v = next(mixed, k)
end
print("next", n, sum, seen.x, seen.y, seen[10], seen[3], next({}))

-- stateful closures
local function counter(from, to, step)
  local i = from - step
  return function()
    i = i + step
    if (step > 0 and i <= to) or (step < 0 and i >= to) then return i end
  end
end
local cs = {}
for i in counter(10, 1, -3) do cs[#cs + 1] = i end
for i in counter(1, 10, 4) do cs[#cs + 1] = i end
print("counter", table.concat(cs, " "))

-- several values per step
local function enumerate_pairs(t)
  local i = 0
  return function()
    i = i + 2
    if t[i] ~= nil then return i // 2, t[i - 1], t[i], t[i - 1] * t[i] end
  end
end
local ep = {}
for n, a, b, p in enumerate_pairs({2, 3, 4, 5, 6, 7, 8}) do ep[#ep + 1] = n .. ":" .. a .. "*" .. b .. "=" .. p end
print("multi", table.concat(ep, " "))

-- composition
local function iter(t)
  local i = 0
  return function() i = i + 1; return t[i] end
end
local function map(f, it) return function() local v = it(); if v ~= nil then return f(v) end end end
local function filter(p, it)
  return function()
    local v = it()
    while v ~= nil and not p(v) do v = it() end
    return v
  end
end
local function take(n, it)
  return function()
    if n <= 0 then return nil end
    n = n - 1
    return it()
  end
end
local function zip(a, b)
  return function()
    local x, y = a(), b()
    if x ~= nil and y ~= nil then return x, y end
  end
end
local function chain(...)
  local its, i = {...}, 1
  return function()
    while its[i] do
      local v = its[i]()
      if v ~= nil then return v end
      i = i + 1
    end
  end
end
local function naturals()
  local n = 0
  return function() n = n + 1; return n end
end
local out = {}
for v in take(8, filter(function(x) return x % 3 ~= 0 end, map(function(x) return x * x end, naturals()))) do
  out[#out + 1] = v
end
print("compose", table.concat(out, " "))
local zs = {}
for a, b in zip(iter({"a", "b", "c", "d"}), naturals()) do zs[#zs + 1] = a .. b end
for v in chain(iter({"x"}), iter({}), iter({"y", "z"})) do zs[#zs + 1] = v end
print("zip/chain", table.concat(zs, " "))

-- a heavier pipeline: primes by trial division through filters
local function primes_upto(n)
  local found = {}
  local it = filter(function(x)
    for _, p in ipairs(found) do
      if p * p > x then break end
      if x % p == 0 then return false end
    end
    return true
  end, take(n - 1, map(function(x) return x + 1 end, naturals())))
  for p in it do found[#found + 1] = p end
  return found
end
local pr = primes_upto(30000)
print("primes", #pr, pr[#pr], pr[1000])

-- library iterators
local words, lens = {}, 0
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do
  words[#words + 1] = w:upper():sub(1, 2)
  lens = lens + #w
end
local kv = {}
for key, val in ("a=1, b=22, ccc=333"):gmatch("(%w+)=(%w+)") do kv[#kv + 1] = val .. key end
local cps = {}
for pos, cp in utf8.codes("aé€😀") do cps[#cps + 1] = pos .. ":" .. cp end
print("gmatch", table.concat(words, ""), lens, table.concat(kv, ","), table.concat(cps, " "))

-- to-be-closed fourth value: closed after the loop ends or breaks
local closed = {}
local function closing(n, tag)
  local tbc = setmetatable({}, {__close = function() closed[#closed + 1] = tag end})
  local function step(limit, i)
    if i < limit then return i + 1 end
  end
  return step, n, 0, tbc
end
local sc = 0
for i in closing(5, "normal") do sc = sc + i end
for i in closing(100, "break") do
  if i > 3 then break end
  sc = sc + i * 100
end
local function ret_from_loop()
  for i in closing(10, "return") do
    if i == 2 then return i end
  end
end
sc = sc + ret_from_loop()
print("tbc", sc, table.concat(closed, ","))

-- nested generic loops over a matrix with several iterator kinds
local M = {}
for i = 1, 60 do
  M[i] = {}
  for j = 1, 60 do M[i][j] = (i * 7 + j * 13 + i * j) % 10 end
end
local function rows(m) return ipairs(m) end
local function diag(m)
  local i = 0
  return function() i = i + 1; if m[i] then return i, m[i][i] end end
end
local tot, dsum = 0, 0
for rep = 1, 40 do
  for _, row in rows(M) do
    for j, x in my_ipairs(row) do tot = tot + x * (j % 3) end
  end
  for _, d in diag(M) do dsum = dsum + d end
end
print("matrix", tot, dsum)
