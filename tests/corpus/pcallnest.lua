-- pcallnest.lua: errors crossing structure.  A try/catch/finally helper
-- built on pcall and to-be-closed variables, an exception class hierarchy
-- with __index and __tostring, nested pcall depth 60 with a context trail
-- added by xpcall handlers, errors thrown from metamethods (__index,
-- __newindex, __call, __eq, __lt, __len, __unm), from table.sort
-- comparators, gsub callbacks and iterators in mid-loop, across coroutine
-- resume, replaced by an erroring __close, and a backtracking parser that
-- uses errors for control flow.  Messages are printed without the
-- "chunk:line:" prefix and without variable info.

local function clean(m)
  if type(m) ~= "string" then return m end
  m = m:gsub("^[^:\n]*:%-?%d+: ", "")
  m = m:gsub(" %(%a+ '[^']*'%)", "")
  return m
end

-- exception classes
local Exception = {name = "Exception"}
Exception.__index = Exception
Exception.__tostring = function(e) return e.name .. ": " .. e.msg end
function Exception:extend(name)
  local cls = setmetatable({name = name}, {__index = self})
  cls.__index, cls.__tostring, cls.parent = cls, Exception.__tostring, self
  return cls
end
function Exception:new(msg) return setmetatable({msg = msg}, self) end
function Exception:throw(msg, ...) error(self:new(string.format(msg, ...))) end
local function instance_of(e, cls)
  if type(e) ~= "table" then return false end
  local c = getmetatable(e)
  while c do
    if c == cls then return true end
    c = c.parent
  end
  return false
end
local IOError = Exception:extend("IOError")
local ValueError = Exception:extend("ValueError")
local RangeError = ValueError:extend("RangeError")

-- try { body } catch (cls) { handler } finally { cleanup }
local function try(body, catches, finally)
  local fin <close> = setmetatable({}, {__close = function() if finally then finally() end end})
  local res = table.pack(pcall(body))
  if res[1] then return table.unpack(res, 2, res.n) end
  local e = res[2]
  for _, c in ipairs(catches) do
    if c[1] == "*" or instance_of(e, c[1]) then return c[2](e) end
  end
  error(e, 0) -- not handled: rethrow unchanged
end

local log = {}
local function attempt(kind)
  return try(function()
    if kind == 1 then IOError:throw("disk %d full", 3)
    elseif kind == 2 then RangeError:throw("index %d out of range", 99)
    elseif kind == 3 then ValueError:throw("bad value")
    elseif kind == 4 then error("plain string")
    elseif kind == 5 then local t = nil; return t.x end
    return "fine", kind
  end, {
    {RangeError, function(e) return "range-handler", tostring(e) end},
    {ValueError, function(e) return "value-handler", tostring(e) end},
    {IOError, function(e) return "io-handler", e.msg end},
  }, function() log[#log + 1] = kind end)
end
for kind = 0, 5 do
  local ok, a, b = pcall(attempt, kind)
  print("try", kind, ok, clean(a), clean(b))
end
print("finally ran", table.concat(log, ","))

-- nested pcall depth 60; each level adds context through its xpcall
-- handler and rethrows, except every 20th level, which handles the error
local function dive(n)
  if n == 0 then error({trail = {"bottom"}}) end
  local ok, e = xpcall(dive, function(err)
    if type(err) == "table" then err.trail[#err.trail + 1] = "h" .. n end
    return err
  end, n - 1)
  if ok then return e end
  if type(e) ~= "table" then return "other" end
  e.trail[#e.trail + 1] = "l" .. n
  if n % 20 ~= 0 then error(e, 0) end
  return #e.trail .. ":" .. e.trail[2] .. ".." .. e.trail[#e.trail]
end
print("dive", pcall(dive, 60))
print("dive", pcall(dive, 20))
local ok2, e2 = pcall(dive, 15)
print("dive", ok2, type(e2) == "table" and #e2.trail, type(e2) == "table" and e2.trail[#e2.trail])

-- errors raised in metamethods
local angry = setmetatable({}, {
  __index = function(_, k) error("no field " .. tostring(k)) end,
  __newindex = function(_, k) error({code = "readonly", key = k}) end,
  __call = function(_, x) if x > 2 then error("too big: " .. x, 2) end return x * 2 end,
  __eq = function() error("cannot compare") end,
  __lt = function() error(ValueError:new("no order")) end,
  __len = function() error(7) end,
  __unm = function() error() end,
})
local other = setmetatable({}, getmetatable(angry))
local probes = {
  function() return angry.color end,
  function() angry.size = 1 end,
  function() local a = angry(1); local b = angry(5); return a, b end,
  function() return angry == other end,
  function() return angry < other end,
  function() return #angry end,
  function() return -angry end,
  function() return rawequal(angry, other), rawlen(angry), rawget(angry, "x") end,
}
for i, p in ipairs(probes) do
  local ok, e, x = pcall(p)
  if type(e) == "table" then e = e.code and (e.code .. "/" .. e.key) or tostring(e) end
  print("meta", i, ok, clean(e), x)
end

-- errors from library callbacks: the library call is abandoned midway
local arr = {}
for i = 1, 200 do arr[i] = (i * 37) % 101 end
local calls = 0
local oks, es = pcall(table.sort, arr, function(a, b)
  calls = calls + 1
  if calls == 150 then error("comparator gave up") end
  return a < b
end)
print("sort", oks, clean(es), calls)
local seen = 0
local okg, eg = pcall(string.gsub, ("abc"):rep(50), "%a", function(c)
  seen = seen + 1
  if seen > 70 then error({stop = seen}) end
  return c:upper()
end)
print("gsub", okg, type(eg) == "table" and eg.stop, seen)

-- an iterator that fails mid-loop
local function flaky(n, bad)
  local i = 0
  return function()
    i = i + 1
    if i == bad then error("iterator broke at " .. i) end
    if i <= n then return i end
  end
end
local function consume(n, bad)
  local s = 0
  for v in flaky(n, bad) do s = s + v end
  return s
end
print("iter", pcall(consume, 10, 100))
local oki, ei = pcall(consume, 10, 4)
print("iter", oki, clean(ei))

-- coroutines: errors inside, caught inside and outside
local co = coroutine.create(function(a)
  local ok, e = pcall(function() coroutine.yield(a + 1); error("inside " .. a) end)
  coroutine.yield(ok, clean(e))
  error(RangeError:new("escaped"))
end)
local r = {}
for _ = 1, 4 do
  local res = table.pack(coroutine.resume(co, 10))
  for i = 1, res.n do r[#r + 1] = tostring(clean(res[i])) end
  r[#r + 1] = "/"
end
print("coro", table.concat(r, " "), coroutine.status(co))

-- to-be-closed variables during unwinding; an erroring __close replaces
-- the error
local closes = {}
local function guarded(fail_close)
  local a <close> = setmetatable({}, {__close = function(_, e) closes[#closes + 1] = "a:" .. tostring(clean(e)) end})
  local b <close> = setmetatable({}, {__close = function(_, e)
    closes[#closes + 1] = "b:" .. tostring(clean(e))
    if fail_close then error("close failed") end
  end})
  error("body failed")
end
print("close", select(2, pcall(guarded, false)) and clean(select(2, pcall(guarded, false))))
closes = {}
local okc, ec = pcall(guarded, true)
print("close", okc, clean(ec), table.concat(closes, " "))

-- error values of every type travel unchanged
local vals = {"s", 42, 4.5, true, false, ValueError:new("obj")}
local kinds = {}
for _, v in ipairs(vals) do
  local _, e = pcall(error, v)
  kinds[#kinds + 1] = type(e) .. "=" .. tostring(e)
end
local _, enil = pcall(error)
kinds[#kinds + 1] = type(enil)
print("values", table.concat(kinds, " "))

-- a backtracking parser for arithmetic that uses errors for failure:
-- each alternative runs under pcall and restores the position on error
local Fail = {}
local function parse(src)
  local pos = 1
  local function fail() error(Fail) end
  local function skip() pos = src:find("[^ ]", pos) or #src + 1 end
  local function lit(s)
    skip()
    if src:sub(pos, pos + #s - 1) ~= s then fail() end
    pos = pos + #s
  end
  local function alt(...)
    local save = pos
    for i = 1, select("#", ...) do
      local ok, v = pcall((select(i, ...)))
      if ok then return v end
      if v ~= Fail then error(v, 0) end
      pos = save
    end
    fail()
  end
  local expr
  local function number()
    skip()
    local s, e = src:find("^%d+", pos)
    if not s then fail() end
    pos = e + 1
    return tonumber(src:sub(s, e))
  end
  local function atom()
    return alt(number, function() lit("("); local v = expr(); lit(")"); return v end,
               function() lit("-"); return -atom() end)
  end
  local function term()
    local v = atom()
    while true do
      local save = pos
      local ok, op = pcall(function() return alt(function() lit("*"); return "*" end,
                                                 function() lit("/"); return "/" end,
                                                 function() lit("%"); return "%" end) end)
      if not ok then pos = save; return v end
      local rhs = atom()
      if op == "*" then v = v * rhs
      elseif rhs == 0 then ValueError:throw("division by zero at %d", pos)
      elseif op == "/" then v = v // rhs
      else v = v % rhs end
    end
  end
  function expr()
    local v = term()
    while true do
      local save = pos
      local ok, op = pcall(function() return alt(function() lit("+"); return 1 end,
                                                 function() lit("-"); return -1 end) end)
      if not ok then pos = save; return v end
      v = v + op * term()
    end
  end
  local ok, v = pcall(function() local r = expr(); skip(); if pos <= #src then fail() end; return r end)
  if ok then return v end
  if v == Fail then return "syntax error" end
  return tostring(v)
end
print("parse", parse("1 + 2 * 3"), parse("(1 + 2) * 3"), parse("-(4 - 10) % 4"), parse("2 * (3"),
      parse("7 / (3 - 3)"), parse("10 - 2 - 3"))
local seed = 5
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return (seed >> 16) % n end
local function gen(d)
  if d == 0 or rnd(3) == 0 then return tostring(rnd(10)) end
  local ops = {"+", "-", "*", "/", "%"}
  local e = gen(d - 1) .. " " .. ops[rnd(5) + 1] .. " " .. gen(d - 1)
  if rnd(2) == 0 then e = "(" .. e .. ")" end
  if rnd(9) == 0 then e = e .. " )" end
  return e
end
local tally = {ok = 0, syntax = 0, value = 0}
local vsum = 0
for _ = 1, 600 do
  local v = parse(gen(4))
  if type(v) == "number" then tally.ok = tally.ok + 1; vsum = vsum + v
  elseif v == "syntax error" then tally.syntax = tally.syntax + 1
  else tally.value = tally.value + 1 end
end
print("random", tally.ok, tally.syntax, tally.value, vsum)
