-- Closures and upvalues: counters, shared upvalues between sibling
-- closures, fresh per-iteration loop variables (numeric, generic, while
-- with locals), upvalues of upvalues through several nesting levels,
-- closures escaping their block, recursion via upvalue, and closing of
-- upvalues on break/goto/return.

local function counter(start)
  local n = start
  return function() n = n + 1; return n end,
         function() return n end,
         function(v) n = v end
end

local inc, get, set = counter(10)
inc(); inc()
print("shared:", get())
set(100); inc()
print("after set:", get())

-- each numeric-for iteration gets a fresh variable
local fs = {}
for i = 1, 5 do fs[i] = function() return i * i end end
local out = {}
for i = 1, 5 do out[i] = fs[i]() end
print("numeric for:", table.concat(out, " "))

-- generic for
local gs = {}
for i, v in ipairs({ "a", "b", "c" }) do gs[#gs + 1] = function() return i .. v end end
print("generic for:", gs[1](), gs[2](), gs[3]())

-- while loop with a local declared in the body: fresh per iteration
local ws, k = {}, 0
while k < 4 do
  k = k + 1
  local captured = k * 10
  ws[k] = function() captured = captured + 1; return captured end
end
print("while:", ws[1](), ws[1](), ws[2](), ws[4]())

-- repeat-until: the until expression sees the body's locals
local rs, j = {}, 0
repeat
  j = j + 1
  local x = j
  rs[j] = function() return x end
until x >= 3
print("repeat:", rs[1](), rs[2](), rs[3]())

-- upvalue of upvalue of upvalue
local function level1(a)
  return function(b)
    return function(c)
      return function(d)
        a = a + 1
        return a + b + c + d
      end
    end
  end
end
local f4 = level1(1)(10)(100)
print("deep:", f4(1000), f4(1000))

-- two closures created in the same iteration share that iteration's var
local pairs_of = {}
for i = 1, 3 do
  local v = i
  pairs_of[i] = { get = function() return v end, bump = function() v = v * 2 end }
end
pairs_of[2].bump(); pairs_of[2].bump()
print("per-iteration sharing:", pairs_of[1].get(), pairs_of[2].get(), pairs_of[3].get())

-- closing upvalues when leaving via break and goto
local captured = {}
for i = 1, 10 do
  local v = i * 3
  captured[#captured + 1] = function() return v end
  if i == 4 then break end
end
do
  local i = 0
  ::top::
  i = i + 1
  local w = i * 7
  captured[#captured + 1] = function() return w end
  if i < 3 then goto top end
end
local vals = {}
for idx, f in ipairs(captured) do vals[idx] = f() end
print("break/goto closing:", table.concat(vals, " "))

-- recursive local function and mutual recursion via upvalues
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print("recursion:", fib(20), is_even(10), is_odd(7))

-- memoize: closure over a cache table
local function memoize(f)
  local cache = {}
  return function(x)
    local v = cache[x]
    if v == nil then v = f(x); cache[x] = v end
    return v
  end
end
local slow_calls = 0
local sq = memoize(function(x) slow_calls = slow_calls + 1; return x * x end)
for i = 1, 100 do sq(i % 10) end
print("memoize calls:", slow_calls)

-- function composition and currying
local function compose(...)
  local fns = { ... }
  return function(x)
    for i = #fns, 1, -1 do x = fns[i](x) end
    return x
  end
end
local function curry3(f) return function(a) return function(b) return function(c) return f(a, b, c) end end end end
local add1 = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
print("compose:", compose(add1, dbl, add1)(5), curry3(function(a, b, c) return a * 100 + b * 10 + c end)(1)(2)(3))

-- upvalue that is also a loop control captured then modified
local acc = {}
for i = 1, 3 do
  local function bump() i = i + 100; return i end
  acc[#acc + 1] = bump()
  acc[#acc + 1] = i
end
print("modified loop var copy:", table.concat(acc, " "))

-- stress: many closure creations and upvalue traffic
local total = 0
for round = 1, 35000 do
  local inc2, get2 = counter(round)
  for _ = 1, 10 do inc2() end
  local adders = {}
  for i = 1, 10 do adders[i] = function(x) return x + i + round end end
  local s = get2()
  for i = 1, 10 do s = adders[i](s) end
  total = (total + s) % 1000000007
end
print("stress total:", total)
