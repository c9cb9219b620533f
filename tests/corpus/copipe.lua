-- Coroutine pipelines: values flow producer -> filters -> consumer, one
-- coroutine per stage.  Pull stages are coroutine.wrap generators; push
-- stages are coroutine.create sinks fed with coroutine.resume, receiving
-- values as the results of coroutine.yield.  Every coroutine runs to its
-- end (a stage returns when its source is exhausted), so none is left
-- suspended.

local yield, wrap, create, resume, status =
  coroutine.yield, coroutine.wrap, coroutine.create, coroutine.resume, coroutine.status

-- Pull stages --------------------------------------------------------

-- n pseudo-random integers in [0, limit) from a private LCG.
local function numbers(n, seed, limit)
  return wrap(function()
    local x = seed
    for _ = 1, n do
      x = (x * 1103515245 + 12345) & 0x7fffffff
      yield((x >> 8) % limit)
    end
  end)
end

local function filter(src, pred)
  return wrap(function()
    for v in src do
      if pred(v) then yield(v) end
    end
  end)
end

local function map(src, f)
  return wrap(function()
    for v in src do yield(f(v)) end
  end)
end

-- Groups of k consecutive values (the last group may be shorter).
local function batch(src, k)
  return wrap(function()
    local group = {}
    for v in src do
      group[#group + 1] = v
      if #group == k then
        yield(group)
        group = {}
      end
    end
    if #group > 0 then yield(group) end
  end)
end

-- Running sums over a sliding window of w values.
local function window_sums(src, w)
  return wrap(function()
    local ring, sum, i = {}, 0, 0
    for v in src do
      i = i + 1
      local slot = i % w
      sum = sum + v - (ring[slot] or 0)
      ring[slot] = v
      if i >= w then yield(sum) end
    end
  end)
end

-- Push stages ----------------------------------------------------------

-- A sink coroutine: primed by the first resume, then fed one value per
-- resume; a nil value ends it and its result comes back from that last
-- resume.
local function stats_sink()
  return create(function()
    local count, total, maxv, hash = 0, 0, nil, 17
    while true do
      local v = yield()
      if v == nil then break end
      count = count + 1
      total = total + v
      if maxv == nil or v > maxv then maxv = v end
      hash = (hash * 31 + v) & 0xffffff
    end
    return count, total, maxv, hash
  end)
end

local function push_all(src, sink)
  assert(resume(sink))           -- run to the first yield
  for v in src do assert(resume(sink, v)) end
  local ok, count, total, maxv, hash = resume(sink, nil)
  assert(ok and status(sink) == "dead")
  return count, total, maxv, hash
end

-- Pipeline 1: numbers -> odd only -> squares mod 997 -> batches of 8 ->
-- batch maxima -> stats sink.
do
  local src = numbers(80000, 42, 1000)
  local odd = filter(src, function(v) return v % 2 == 1 end)
  local sq = map(odd, function(v) return v * v % 997 end)
  local maxima = map(batch(sq, 8), function(g)
    local m = g[1]
    for i = 2, #g do if g[i] > m then m = g[i] end end
    return m
  end)
  print("pipeline 1:", push_all(maxima, stats_sink()))
end

-- Pipeline 2: sliding-window sums of a filtered stream.
do
  local src = filter(numbers(50000, 7, 500), function(v) return v % 3 ~= 0 end)
  print("pipeline 2:", push_all(window_sums(src, 16), stats_sink()))
end

-- Pipeline 3: the prime sieve as a growing chain of filter coroutines,
-- one per prime up to the square root of the limit, driven with
-- create/resume (nested resumes: the chain stays well below Lua's C
-- stack limit of about 200 levels).
do
  local function counter(limit)
    return create(function()
      for i = 2, limit do yield(i) end
    end)
  end
  -- pulls from co; returns nil when it has finished
  local function pull(co)
    local ok, v = resume(co)
    assert(ok)
    return v
  end
  local function sieve_stage(src, p)
    return create(function()
      while true do
        local v = pull(src)
        if v == nil then return end
        if v % p ~= 0 then yield(v) end
      end
    end)
  end
  local limit = 40000
  local chain = counter(limit)
  local primes, sum = 0, 0
  local last
  while true do
    local p = pull(chain)
    if p == nil then break end
    primes = primes + 1
    sum = sum + p
    last = p
    if p * p <= limit then chain = sieve_stage(chain, p) end
  end
  print("pipeline 3:", primes, sum, last)
end

-- Pipeline 4: merge two sorted generators by explicit resume, then
-- deduplicate through a wrap stage.
do
  local function multiples(k, limit)
    return create(function()
      for v = k, limit, k do yield(v) end
    end)
  end
  local function merge(a, b)
    return wrap(function()
      local _, x = resume(a)
      local _, y = resume(b)
      while x ~= nil or y ~= nil do
        if y == nil or (x ~= nil and x <= y) then
          yield(x)
          _, x = resume(a)
        else
          yield(y)
          _, y = resume(b)
        end
      end
    end)
  end
  local function dedup(src)
    return wrap(function()
      local prev
      for v in src do
        if v ~= prev then yield(v) end
        prev = v
      end
    end)
  end
  local merged = dedup(merge(multiples(3, 150000), multiples(5, 150000)))
  print("pipeline 4:", push_all(merged, stats_sink()))
end
