-- upvalues.lua: upvalues shared across coroutines and closures.  Open
-- upvalues of a suspended coroutine seen and changed by closures run in
-- another coroutine and in the main thread, upvalues that are closed
-- when a coroutine finishes, closures created in loops inside coroutines,
-- an event bus of closures over shared state, objects made of closures
-- (no tables for state), debug.upvaluejoin/upvalueid comparisons (never
-- printed as addresses), and a closure-heavy accumulator workload.

-- a coroutine's local captured by closures handed out while it is suspended
local getters = {}
local co = coroutine.create(function()
  local shared = 0
  local function inc(d) shared = shared + d; return shared end
  local function get() return shared end
  getters.inc, getters.get = inc, get
  for round = 1, 5 do
    shared = shared + 100
    coroutine.yield(shared, round)
  end
  return shared
end)
local trace = {}
local _, first = coroutine.resume(co)
trace[#trace + 1] = first
getters.inc(5)                         -- main thread changes the open upvalue
local other = coroutine.wrap(function()
  for i = 1, 3 do getters.inc(i); coroutine.yield(getters.get()) end
end)
trace[#trace + 1] = other()
local _, second = coroutine.resume(co) -- sees the changes
trace[#trace + 1] = second
trace[#trace + 1] = other()
trace[#trace + 1] = other()
other()                                -- let it finish
while coroutine.status(co) ~= "dead" do
  local _, v = coroutine.resume(co)
  trace[#trace + 1] = v
end
trace[#trace + 1] = getters.inc(1)     -- the upvalue is closed now, still shared
trace[#trace + 1] = getters.get()
print("shared", table.concat(trace, " "))

-- closures made in a loop inside a coroutine: one fresh variable each pass
local makers = coroutine.wrap(function()
  local fs = {}
  for i = 1, 6 do
    local sq = i * i
    fs[i] = function(d) sq = sq + d; return sq end
    if i % 2 == 0 then coroutine.yield(fs) end
  end
  return fs
end)
local fs = makers()
local a1 = fs[1](1) + fs[2](2)
makers()
local a2 = fs[3](3) + fs[4](4)
fs = makers()
local a3 = fs[5](0) + fs[6](0) + fs[1](0)
local finished = makers() == fs -- the coroutine runs to its end
print("loop-closures", a1, a2, a3, #fs, finished)

-- an event bus: handlers are closures over shared counters
local function bus()
  local handlers, fired = {}, 0
  local function on(name, f)
    handlers[name] = handlers[name] or {}
    local list = handlers[name]
    list[#list + 1] = f
    return function() -- unsubscribe
      for i = #list, 1, -1 do if list[i] == f then table.remove(list, i) end end
    end
  end
  local function emit(name, ...)
    local list = handlers[name]
    if not list then return 0 end
    local n = 0
    for i = 1, #list do list[i](...); n = n + 1 end
    fired = fired + n
    return n
  end
  return on, emit, function() return fired end
end
local on, emit, fired = bus()
local total, hits = 0, 0
local off1 = on("add", function(x) total = total + x end)
on("add", function(x) hits = hits + 1 end)
local off3 = on("mul", function(x) total = total * x end)
for i = 1, 300 do
  emit("add", i)
  if i % 50 == 0 then emit("mul", 2) end
  if i == 150 then off1() end
  if i == 250 then off3() end
end
print("bus", total, hits, fired(), emit("none"))

-- objects as closures: a bank account and a queue with no table state
local function account(balance)
  local history = 0
  local self = {}
  function self.deposit(v) balance = balance + v; history = history + 1 end
  function self.withdraw(v)
    if v > balance then return false end
    balance = balance - v; history = history + 1
    return true
  end
  function self.balance() return balance end
  function self.history() return history end
  return self
end
local function queue()
  local head, tail, items = 1, 0, {}
  return function(v) tail = tail + 1; items[tail] = v end,
         function()
           if head > tail then return nil end
           local v = items[head]; items[head] = nil; head = head + 1
           return v
         end,
         function() return tail - head + 1 end
end
local acc = account(100)
local push, pop, size = queue()
local seed = 31
for i = 1, 20000 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  local r = (seed >> 16) % 100
  if r < 45 then acc.deposit(r)
  elseif r < 90 then if not acc.withdraw(r) then push(r) end
  else
    local v = pop()
    if v then acc.deposit(v // 2) end
  end
end
print("closure-objects", acc.balance(), acc.history(), size())

-- upvalue identity through the debug library (compared, never printed)
local function make_pair()
  local n = 0
  return function() n = n + 1; return n end, function() return n end
end
local incA, getA = make_pair()
local incB, getB = make_pair()
local same_before = debug.upvalueid(incA, 1) == debug.upvalueid(getA, 1)
local cross = debug.upvalueid(incA, 1) == debug.upvalueid(incB, 1)
incA(); incA(); incB()
debug.upvaluejoin(getB, 1, incA, 1) -- getB now reads A's counter
print("upvalueid", same_before, cross, getA(), getB(), incB(), getB(),
      debug.upvalueid(getB, 1) == debug.upvalueid(incA, 1))

-- workload: chains of accumulator closures built and run repeatedly
local function adder_chain(n)
  local f = function(x) return x end
  for i = 1, n do
    local g, k = f, i
    f = function(x) return g(x) + k end
  end
  return f
end
local function counter_bank(n)
  local counters = {}
  for i = 1, n do
    local c = 0
    counters[i] = function(d) c = c + d * i; return c end
  end
  return counters
end
local sum = 0
for rep = 1, 200 do
  local chain = adder_chain(100)
  sum = sum + chain(rep)
  local bank = counter_bank(50)
  for j = 1, 50 do
    for _ = 1, 4 do sum = sum + bank[j](rep % 3) end
  end
end
print("workload", sum)
