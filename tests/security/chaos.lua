-- Random debug-library operations (seeded by arg[1]) on closures, on
-- built-ins and on C closures (iterators, coroutine.wrap's functions),
-- to-be-closed values whose __close is a C function, from the program
-- and from hooks of random kinds, then a loop that only the quota can
-- stop, inside a to-be-closed value whose __close may be os.exit.
-- Used by test_rt_debug_escape with many seeds: every run must end with the
-- quota (exit 3), whatever the operations did.
-- Everything the driver uses is a local: the operations may set _ENV.
local pcall, pairs, ipairs, type, load = pcall, pairs, ipairs, type, load
local setmetatable, exit = setmetatable, os.exit
local debug, dump, mtype = debug, string.dump, math.type
local seed = tonumber(arg[1]) or 1
math.randomseed(seed)
local R = math.random
local up1, up2 = 0, 0
local vals = {-1e15, math.mininteger, 0, 7, function() end, print, {}, "x",
              false, true, 2^53, io.stdout}
-- built-ins (native-charging wrappers under a limit) and the main chunk,
-- whose locals the driver needs
local builtins = {string.rep, table.concat, string.format, string.gsub,
                  select, tostring, string.find}
-- C closures, whose upvalues C trusts: replacing them crashed lua5.4
-- and lraf (string.gmatch's state, coroutine.wrap's coroutine, the
-- file of io.lines, lraf's charging utf8.codes iterator)
local cclosures = {
  function() return string.gmatch(("abc"):rep(40), ".") end,
  function() return coroutine.wrap(function(...)
    while true do coroutine.yield(...) end end) end,
  function() return io.lines(arg[0]) end,
  function() return (utf8.codes("h\u{e9}llo")) end,
  function() return (ipairs({})) end,
}
for _, mkc in ipairs(cclosures) do builtins[#builtins + 1] = mkc() end
-- __close handlers: C functions (os.exit only for the last loop)
local closers = {string.rep, tostring, select, print, error, load,
                 coroutine.wrap(function() end), next}
local closable = {0, true, "s", false, 1.5}
local main = debug.getinfo(1, "f").func
local fs = {}
local function mk(i)
  return function(a)
    local s = (mtype(a) and a or 0)
    for k = 1, 3 do s = s + k + (mtype(up1) and up1 or 0) end
    up2 = s
    return s
  end
end
for i = 1, 6 do fs[i] = mk(i) end
fs[7] = function() return up1, up2 end
local mine = {}
for _, f in ipairs(fs) do mine[f] = true end

local function op()
  local f, g = fs[R(1, #fs)], fs[R(1, #fs)]
  local n, v = R(-1, 7), vals[R(1, #vals)]
  local k = R(1, 13)
  if k == 1 then
    debug.setupvalue(f, n, v)
  elseif k == 2 then
    debug.upvaluejoin(f, n, g, R(-1, 7))
  elseif k == 3 then
    debug.getupvalue(f, n)
    debug.upvalueid(f, n)
  elseif k == 4 or k == 5 then
    for level = 2, 8 do
      local info = debug.getinfo(level, "f")
      if not info then break end
      if mine[info.func] then
        local i = R(1, 20)
        if k == 4 then debug.getlocal(level, i)
        else debug.setlocal(level, i, v) end
      end
    end
  elseif k == 6 then
    local r = debug.getregistry()
    for key, val in pairs(r) do
      if type(val) == "function" then debug.setupvalue(val, R(1, 4), v) end
    end
  elseif k == 7 then
    debug.traceback("t", R(0, 5))
  elseif k == 8 then
    local masks = {"", "c", "r", "l", "crl"}
    debug.sethook(function() pcall(op) end, masks[R(1, #masks)], R(0, 5))
  elseif k == 9 then
    local x = load(dump(f, R(1, 2) == 1))
    if x then fs[R(1, #fs)] = x mine[x] = true end
  elseif k == 10 then
    local b, j = builtins[R(1, #builtins)], R(1, 4)
    if j == 1 then debug.setupvalue(b, n, v)
    elseif j == 2 then debug.getupvalue(b, n) debug.upvalueid(b, n)
    elseif j == 3 then debug.upvaluejoin(f, n, b, R(-1, 3))
    else b("ab", R(1, 3), ",") end
  elseif k == 12 then
    -- a fresh C closure, its upvalues tried, then called
    local c = cclosures[R(1, #cclosures)]()
    builtins[R(1, #builtins)] = c
    debug.setupvalue(c, R(-1, 3), v)
    debug.upvaluejoin(f, n, c, R(-1, 3))
    c("ab", R(0, 3))
  elseif k == 13 then
    -- a to-be-closed value whose __close is a C function (and any value
    -- of that type from now on)
    local c = closers[R(1, #closers)]
    if R(1, 2) == 1 then
      local x <close> = setmetatable({}, {__close = c})
      fs[R(1, #fs)](R(1, 10))
    else
      local x = closable[R(1, #closable)]
      debug.setmetatable(x, {__close = c})
      local y <close> = x
      fs[R(1, #fs)](R(1, 10))
    end
  else
    -- any frame but the main chunk's, C functions' included
    for level = 2, 8 do
      local info = debug.getinfo(level, "f")
      if not info then break end
      if info.func ~= main then
        pcall(debug.setlocal, level + 1, R(-2, 8), v)  -- +1: pcall's
      end
    end
  end
end

for i = 1, 200 do
  pcall(op)
  pcall(fs[R(1, #fs)], R(1, 10))
end
-- the stop runs this __close: os.exit there exited 0
debug.setmetatable(0, {__close = R(1, 2) == 1 and exit or
                                 closers[R(1, #closers)]})
local last <close> = 0
while true do end
