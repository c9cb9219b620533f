-- coro_sched.lua: cooperative multitasking with coroutines.  A
-- round-robin scheduler with sleeping (virtual ticks), message channels
-- between tasks, a join primitive, wrap-based generators (permutations,
-- a merged stream of sorted generators, a prime sieve of chained
-- coroutine filters), yields from inside pcall and from inside a
-- metamethod, and a producer/filter/consumer pipeline.  Every coroutine
-- runs to its end.

-- scheduler: tasks yield a command table or nothing
local Sched = {}
Sched.__index = Sched
function Sched.new()
  return setmetatable({ready = {}, sleeping = {}, tick = 0, trace = {}, done = {}, names = {}}, Sched)
end
function Sched:spawn(name, f, ...)
  local args = table.pack(...)
  local co = coroutine.create(function() return f(table.unpack(args, 1, args.n)) end)
  self.ready[#self.ready + 1] = {name = name, co = co}
  self.names[#self.names + 1] = name
  return name
end
function Sched:run(max_ticks)
  while (#self.ready > 0 or #self.sleeping > 0) and self.tick < max_ticks do
    self.tick = self.tick + 1
    -- wake sleepers whose time has come, in order of insertion
    local still = {}
    for _, s in ipairs(self.sleeping) do
      if s.wake <= self.tick then self.ready[#self.ready + 1] = s.task else still[#still + 1] = s end
    end
    self.sleeping = still
    local batch = self.ready
    self.ready = {}
    for _, task in ipairs(batch) do
      local ok, cmd, arg = coroutine.resume(task.co, self.tick)
      if not ok then
        self.trace[#self.trace + 1] = task.name .. "!" .. (tostring(cmd):gsub("^[^:]*:%d+: ", ""))
        self.done[task.name] = "error"
      elseif coroutine.status(task.co) == "dead" then
        self.done[task.name] = cmd == nil and "done" or tostring(cmd)
      elseif cmd == "sleep" then
        self.sleeping[#self.sleeping + 1] = {task = task, wake = self.tick + arg}
      elseif cmd == "wait" then
        -- wait until another task is done: poll by sleeping one tick
        if self.done[arg] then self.ready[#self.ready + 1] = task
        else self.sleeping[#self.sleeping + 1] = {task = task, wake = self.tick + 1, waiting = arg} end
      else
        self.ready[#self.ready + 1] = task
      end
    end
  end
  return self.tick
end
local function sleep(n) coroutine.yield("sleep", n) end
local function join(name, sched)
  while not sched.done[name] do coroutine.yield("wait", name) end
  return sched.done[name]
end

-- channels: bounded queues; a full send or an empty receive yields
local Chan = {}
Chan.__index = Chan
function Chan.new(cap) return setmetatable({buf = {}, head = 1, tail = 0, cap = cap, closed = false}, Chan) end
function Chan:send(v)
  while self.tail - self.head + 1 >= self.cap do coroutine.yield() end
  self.tail = self.tail + 1
  self.buf[self.tail] = v
end
function Chan:recv()
  while self.tail < self.head do
    if self.closed then return nil end
    coroutine.yield()
  end
  local v = self.buf[self.head]
  self.buf[self.head] = nil
  self.head = self.head + 1
  return v
end

local S = Sched.new()
local results = {}
local ch1, ch2 = Chan.new(4), Chan.new(2)
S:spawn("producer", function()
  for i = 1, 400 do ch1:send(i) end
  ch1.closed = true
  return "sent"
end)
S:spawn("squarer", function()
  local n = 0
  while true do
    local v = ch1:recv()
    if v == nil then break end
    if v % 3 ~= 0 then ch2:send(v * v); n = n + 1 end
  end
  ch2.closed = true
  return n
end)
S:spawn("summer", function()
  local s = 0
  while true do
    local v = ch2:recv()
    if v == nil then break end
    s = s + v
  end
  results.sum = s
end)
S:spawn("sleeper", function()
  local ticks = {}
  for i = 1, 5 do
    ticks[#ticks + 1] = coroutine.yield("sleep", i * 3) or "?"
  end
  results.sleeper = #ticks
end)
S:spawn("joiner", function()
  local r = join("summer", S)
  results.joined = r
  sleep(2)
  return "joined-" .. r
end)
S:spawn("faulty", function()
  sleep(4)
  return error("disk on fire")
end)
S:spawn("counter", function(a, b, c)
  local acc = 0
  for i = 1, 50 do
    acc = acc + a * i + b - c
    coroutine.yield()
  end
  return acc
end, 3, 2, 1)
local ticks = S:run(100000)
local states = {}
for _, k in ipairs(S.names) do states[#states + 1] = k .. "=" .. S.done[k] end
print("sched", ticks, results.sum, results.sleeper, results.joined)
print("done", table.concat(states, " "))
print("trace", table.concat(S.trace, " | "))

-- generators with wrap
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a)
  else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local function permutations(a)
  return coroutine.wrap(function() permgen(a) end)
end
local pc, ph = 0, 0
for p in permutations({1, 2, 3, 4, 5, 6, 7}) do
  pc = pc + 1
  ph = (ph * 7 + p[1] * 100 + p[4] * 10 + p[7]) % 1000000007
end
print("perms", pc, ph)

-- merging sorted generators
local function gen_multiples(k, limit)
  return coroutine.wrap(function()
    for v = k, limit, k do coroutine.yield(v) end
  end)
end
local function merge(gens)
  return coroutine.wrap(function()
    local heads = {}
    for i, g in ipairs(gens) do heads[i] = g() end
    while true do
      local best
      for i = 1, #gens do
        if heads[i] ~= nil and (best == nil or heads[i] < heads[best]) then best = i end
      end
      if best == nil then return end
      coroutine.yield(heads[best])
      heads[best] = gens[best]()
    end
  end)
end
local last, distinct, count = nil, 0, 0
for v in merge({gen_multiples(3, 3000), gen_multiples(5, 3000), gen_multiples(7, 3000)}) do
  count = count + 1
  if v ~= last then distinct = distinct + 1; last = v end
end
print("merge", count, distinct, last)

-- a prime sieve as a chain of coroutine filters; when the numbers run
-- out every filter ends in turn
local function numbers_between(n, m)
  return coroutine.wrap(function() for i = n, m do coroutine.yield(i) end end)
end
local function drop_multiples(p, src)
  return coroutine.wrap(function()
    for v in src do
      if v % p ~= 0 then coroutine.yield(v) end
    end
  end)
end
local src = numbers_between(2, 300)
local primes = {}
while true do
  local p = src()
  if p == nil then break end
  primes[#primes + 1] = p
  src = drop_multiples(p, src)
end
print("sieve", #primes, primes[10], primes[#primes])

-- yields from inside pcall and from a metamethod
local yielding = setmetatable({}, {__index = function(_, k)
  local got = coroutine.yield("need", k)
  return got * 2
end})
local co = coroutine.create(function()
  local ok, v = pcall(function()
    local a = yielding.alpha
    local b = yielding.beta
    coroutine.yield("inside-pcall", a + b)
    return error({sum = a + b})
  end)
  return ok, type(v) == "table" and v.sum
end)
local out = {}
local reply = 10
while coroutine.status(co) ~= "dead" do
  local res = table.pack(coroutine.resume(co, reply))
  for i = 1, res.n do out[#out + 1] = tostring(res[i]) end
  reply = reply + 1
end
print("yield-across", table.concat(out, " "), coroutine.isyieldable(), coroutine.status(co))

-- running/status seen from inside and outside
local inner_status
local c2
c2 = coroutine.create(function()
  local me, ismain = coroutine.running()
  inner_status = coroutine.status(c2) .. "/" .. tostring(me == c2) .. "/" .. tostring(ismain)
  local c3 = coroutine.wrap(function() return coroutine.status(c2) end)
  return c3()
end)
local _, from_nested = coroutine.resume(c2)
local _, mainflag = coroutine.running()
print("status", inner_status, from_nested, coroutine.status(c2), mainflag)

-- a long pipeline: many small coroutines passing values along
local function stage(f, upstream)
  return coroutine.wrap(function()
    for v in upstream do coroutine.yield(f(v)) end
  end)
end
local pipe = coroutine.wrap(function() for i = 1, 8000 do coroutine.yield(i) end end)
for s = 1, 12 do
  local k = s
  pipe = stage(function(v) return (v * 3 + k) % 10007 end, pipe)
end
local psum, pn = 0, 0
for v in pipe do psum = psum + v; pn = pn + 1 end
print("pipeline", pn, psum)
