-- Coroutines: generators, wrap, passing values both ways through
-- resume/yield, status in every state, isyieldable, running, yield across
-- pcall and metamethods/iterators, errors inside coroutines, close() with
-- pending to-be-closed variables, producer/consumer pipelines.

local function clean(msg)
  return (tostring(msg):gsub("^.-:%-?%d+: ", ""):gsub(" %([%a ]+ '[^']*'%)$", ""))
end

-- generator
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i, i * i) end
    return "done"
  end)
end
local g = gen(3)
print("gen:", g())
print("gen:", g())
print("gen:", g())
print("gen:", g())
print("gen dead:", pcall(g))

-- values in both directions
local co = coroutine.create(function(a, b)
  print("  start", a, b)
  local c = coroutine.yield(a + b)
  print("  got", c)
  local d, e = coroutine.yield(c * 2)
  print("  got", d, e)
  return d + e, "end"
end)
print("resume1:", coroutine.resume(co, 1, 2))
print("resume2:", coroutine.resume(co, 10))
print("resume3:", coroutine.resume(co, 3, 4))
print("resume4:", coroutine.resume(co))

-- status in every state and running/isyieldable
local main_co, is_main = coroutine.running()
print("main:", type(main_co), is_main, coroutine.isyieldable())
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function()
    print("  inner sees outer:", coroutine.status(outer))
    print("  inner isyieldable:", coroutine.isyieldable(), select(2, coroutine.running()))
    coroutine.yield()
  end)
  print("  inner before:", coroutine.status(inner))
  coroutine.resume(inner)
  print("  inner after yield:", coroutine.status(inner))
  print("  self:", coroutine.status(outer))
  coroutine.yield()
  coroutine.resume(inner)
  print("  inner finished:", coroutine.status(inner))
end)
print("status:", coroutine.status(outer))
coroutine.resume(outer)
print("status:", coroutine.status(outer))
coroutine.resume(outer)
print("status:", coroutine.status(outer))
print("resume dead:", coroutine.resume(outer))

-- yield across pcall (5.4 allows it) and error after resuming
local co2 = coroutine.create(function()
  local ok, v = pcall(function()
    local x = coroutine.yield("inside pcall")
    if x == "fail" then error("failed with " .. x) end
    return x
  end)
  coroutine.yield("pcall result: " .. tostring(ok) .. " " .. clean(v))
  local ok2, v2 = pcall(function()
    local y = coroutine.yield("second")
    error({ code = y })
  end)
  return "table error code " .. v2.code
end)
print("ypcall:", coroutine.resume(co2))
print("ypcall:", coroutine.resume(co2, "fail"))
print("ypcall:", coroutine.resume(co2))
print("ypcall:", coroutine.resume(co2, 42))

-- yield across metamethods and inside for-in iterators
local mt = { __add = function(a, b) local r = coroutine.yield("in __add"); return r end,
             __index = function(t, k) return coroutine.yield("in __index " .. k) end }
local co3 = coroutine.wrap(function()
  local o = setmetatable({}, mt)
  local s = o + 1
  local f = o.field
  local acc = {}
  for v in coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end) do
    acc[#acc + 1] = coroutine.yield("iter " .. v)
  end
  return s, f, table.concat(acc, ",")
end)
print("meta:", co3())
print("meta:", co3(100))
print("meta:", co3("F"))
print("meta:", co3("a"))
print("meta:", co3("b"))
print("meta:", co3("c"))

-- errors inside coroutines
local co4 = coroutine.create(function() local t = nil; return t.x end)
local ok4, e4 = coroutine.resume(co4)
print("error:", ok4, clean(e4), coroutine.status(co4))
local co5 = coroutine.create(function() error({ "tbl" }) end)
local ok5, e5 = coroutine.resume(co5)
print("error table:", ok5, type(e5), e5[1])
print("wrap error:", pcall(coroutine.wrap(function() error("wrapped", 0) end)))
print("resume non-suspended:", coroutine.resume(coroutine.running()))
print("yield outside:", pcall(coroutine.yield, 1))

-- close
local closed = {}
local co6 = coroutine.create(function()
  local r <close> = setmetatable({}, { __close = function() closed[#closed + 1] = "r" end })
  local q <close> = setmetatable({}, { __close = function() closed[#closed + 1] = "q" end })
  coroutine.yield(1)
  closed[#closed + 1] = "never"
end)
coroutine.resume(co6)
print("close:", coroutine.status(co6), coroutine.close(co6), coroutine.status(co6), table.concat(closed, ","))
local co7 = coroutine.create(function()
  local r <close> = setmetatable({}, { __close = function() error("close err", 0) end })
  coroutine.yield()
end)
coroutine.resume(co7)
print("close with error:", coroutine.close(co7))
local okc, errc = coroutine.close(co4)
print("close dead/fresh:", coroutine.close(coroutine.create(print)), okc, clean(errc))

-- producer / filter / consumer pipeline
local function producer(n)
  return coroutine.create(function() for i = 1, n do coroutine.yield(i) end end)
end
local function filter(src, pred)
  return coroutine.create(function()
    while true do
      local ok, v = coroutine.resume(src)
      if not v then return end
      if pred(v) then coroutine.yield(v) end
    end
  end)
end
local function consume(src)
  local sum, cnt = 0, 0
  while true do
    local ok, v = coroutine.resume(src)
    if not v then break end
    sum, cnt = sum + v, cnt + 1
  end
  return sum, cnt
end
print("pipeline:", consume(filter(producer(100), function(v) return v % 3 == 0 end)))

-- permutation generator via recursive yields
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local perms = {}
for p in coroutine.wrap(function() permgen({ "a", "b", "c" }) end) do perms[#perms + 1] = table.concat(p) end
print("perms:", table.concat(perms, " "))

-- stress: many short-lived coroutines and many yields
local total = 0
for round = 1, 3000 do
  local c = coroutine.wrap(function(x)
    for i = 1, 100 do x = coroutine.yield(x + i) end
    return x
  end)
  local v = c(round)
  for _ = 1, 100 do v = c(v % 1000) end
  total = total + v
end
for i = 1, 3000 do
  local c = coroutine.create(function(a) return a * 2 end)
  local _, r = coroutine.resume(c, i)
  total = total + r
end
print("stress:", total)
