-- Random Lua 5.4 program generator for lraf's differential tests.
--
-- usage: lua5.4 tests/gen/gen.lua SEED   (prints one program to stdout)
--
-- The output depends only on SEED (own splitmix64 PRNG, no math.random).
-- Every generated program:
--   * terminates quickly: loops have literal or capped trip counts, the only
--     recursion is a template with a literal depth, and a static cost model
--     (loop multiplicity x statement count, charged again at every call
--     site) keeps the total work under a fixed budget;
--   * raises no uncaught error: variables have static types (int, flt, str,
--     bool, tbl = array of ints, obj = instance of class V) and expressions
--     are built so that no operation can fail (integer // and % use an odd
--     divisor, bitwise ops only see integers, concatenation only strings and
--     numbers, strings/tables are capped in size); deliberate errors happen
--     only inside pcall/xpcall;
--   * prints deterministic output: a running checksum plus a few values;
--     error messages are printed without "chunk:line:" prefixes and
--     variable info; no addresses, no string-keyed pairs().

local SEED = math.tointeger(tonumber(arg and arg[1] or "1")) or 1

-- PRNG ----------------------------------------------------------------------
local state = SEED * 0x2545F4914F6CDD1D + 0x5DEECE66D
local function rnext()
  state = state + 0x9E3779B97F4A7C15
  local z = state
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end
local function R(n) return ((rnext() >> 1) % n) + 1 end      -- 1..n
local function RR(a, b) return a + R(b - a + 1) - 1 end     -- a..b
local function P(pct) return R(100) <= pct end
local function pick(t) return t[R(#t)] end

-- limits -------------------------------------------------------------------
local BUDGET = 50000    -- total estimated statement executions per program
local FN_MAX = 1500     -- estimated cost of one call of a generated function
local MAXMULT = 400     -- max product of enclosing loop trip counts
local MAXDEPTH = 4      -- max block nesting
local MAXLOCALS = 120   -- active locals per function (Lua's limit is 200)
local MAXPRINTS = 14

-- output -------------------------------------------------------------------
local lines = {}
local indent = 0
local function emit(s) lines[#lines + 1] = string.rep("  ", indent) .. s end
local uid = 0
local function fresh(prefix) uid = uid + 1; return prefix .. uid end
local prints = 0
-- set when the program may abandon an accounting block: a caught error or
-- a coroutine left suspended (see the "abandons" line at the end)
local ABANDONS = false

-- scopes -------------------------------------------------------------------
-- each scope is a list of {name=, ty=, mut=, sig=}; sig for ty == "fn":
--   { params = {types}, ret = type, cost = n, multi = bool }
local scopes = {}
local function push_scope() scopes[#scopes + 1] = {} end
local function pop_scope() scopes[#scopes] = nil end
local function declare(name, ty, mut, sig)
  local v = { name = name, ty = ty, mut = mut, sig = sig }
  local s = scopes[#scopes]
  s[#s + 1] = v
  return v
end
local function visible(ty, mut_only)
  local out = {}
  for i = 1, #scopes do
    for _, v in ipairs(scopes[i]) do
      if v.ty == ty and (not mut_only or v.mut) then out[#out + 1] = v end
    end
  end
  return out
end
local function active_locals(ctx)
  local n = 0
  for i = ctx.base, #scopes do n = n + #scopes[i] end
  return n
end

-- context --------------------------------------------------------------------
local function derive(ctx, t)
  local c = {}
  for k, v in pairs(ctx) do c[k] = v end
  for k, v in pairs(t) do c[k] = v end
  return c
end
local function charge(ctx, n) ctx.acc.n = ctx.acc.n + ctx.mult * n end
local function budget_left(ctx) return ctx.acc.n < ctx.acc.max end
local function can_loop(ctx, k)
  return ctx.depth < MAXDEPTH and ctx.mult * k <= MAXMULT and budget_left(ctx)
end

-- literals -------------------------------------------------------------------
local function lit_int()
  local r = R(40)
  if r <= 22 then return tostring(RR(0, 20))
  elseif r <= 28 then return "(" .. tostring(RR(-100, -1)) .. ")"
  elseif r <= 33 then return tostring(RR(100, 100000))
  elseif r == 34 then return "math.maxinteger"
  elseif r == 35 then return "math.mininteger"
  elseif r == 36 then return "(math.maxinteger - " .. RR(0, 3) .. ")"
  else return string.format("0x%X", R(0xFFFF)) end
end
local FLTS = { "0.5", "1.5", "2.25", "(-3.75)", "1e3", "0.1", "3.0", "(-0.0)", "1e-3", "100.125",
               "0.0", "2.0", "(-1.5)", "1e15", "6.5", "(-2.0)" }
local function lit_flt()
  if P(30) then return string.format("%d.%d", RR(0, 50), RR(0, 99)) end
  return pick(FLTS)
end
local WORDS = { "a", "b", "xy", "lua", "hello", "Zeta", "", "a b", "k9", "tab\\t", "q\\\"q", "10", "0x1F", "abc", "\\65\\66" }
local function lit_str() return '"' .. pick(WORDS) .. '"' end

-- expressions ----------------------------------------------------------------
local E -- forward: E(ctx, ty, depth)

local function var_of(ty)
  local vs = visible(ty)
  if #vs == 0 then return nil end
  return pick(vs).name
end

-- functions callable from here whose result type is ty
local function callable(ctx, ty)
  local out = {}
  for _, f in ipairs(visible("fn")) do
    local s = f.sig
    if s.ret == ty and ctx.mult * s.cost <= MAXMULT * 4
       and ctx.acc.n + ctx.mult * s.cost <= ctx.acc.max then
      out[#out + 1] = f
    end
  end
  return out
end
local function call_expr(ctx, f, d)
  local args = {}
  for i, pt in ipairs(f.sig.params) do args[i] = E(ctx, pt, d - 1) end
  charge(ctx, f.sig.cost)
  return f.name .. "(" .. table.concat(args, ", ") .. ")"
end

-- a call of a function callable here whose result type is ty, or else
-- fallback()
local function call_or(ctx, ty, d, fallback)
  local fs = callable(ctx, ty)
  if #fs > 0 then return call_expr(ctx, pick(fs), d) end
  return fallback()
end

-- a variable of type ty (tried with probability pct), or else lit()
local function var_or(pct, ty, lit)
  local v = P(pct) and var_of(ty)
  return v or lit()
end

local function num(ctx, d)  -- int or float expression
  if P(50) then return E(ctx, "int", d) end
  return E(ctx, "flt", d)
end

local gen = {}

function gen.int(ctx, d)
  if d <= 0 or P(25) then return var_or(65, "int", lit_int) end
  local a = function() return E(ctx, "int", d - 1) end
  local r = R(34)
  if r <= 5 then return "(" .. a() .. " " .. pick({ "+", "-", "*" }) .. " " .. a() .. ")"
  elseif r == 6 then return "(" .. a() .. " // (" .. a() .. " | 1))"
  elseif r == 7 then return "(" .. a() .. " % (" .. a() .. " | 1))"
  elseif r == 8 then return "(" .. a() .. " " .. pick({ "&", "|", "~" }) .. " " .. a() .. ")"
  elseif r == 9 then return "(" .. a() .. " " .. pick({ "<<", ">>" }) .. " (" .. a() .. " & 15))"
  elseif r == 10 then return "(" .. pick({ "- ", "~ " }) .. a() .. ")"
  elseif r == 11 then return "(#" .. E(ctx, "str", d - 1) .. ")"
  elseif r == 12 then return "(#" .. E(ctx, "tbl", d - 1) .. ")"
  elseif r == 13 then
    return "(" .. E(ctx, "tbl", d - 1) .. "[" .. a() .. " % 9 + 1] or " .. lit_int() .. ")"
  elseif r == 14 then return "math." .. pick({ "max", "min" }) .. "(" .. a() .. ", " .. a() .. ")"
  elseif r == 15 then return "math.abs(" .. a() .. ")"
  elseif r == 16 then return "(math.tointeger(" .. E(ctx, "flt", d - 1) .. ") or " .. lit_int() .. ")"
  elseif r == 17 then return "(" .. E(ctx, "bool", d - 1) .. " and " .. a() .. " or " .. a() .. ")"
  elseif r == 18 then return '("' .. RR(0, 99) .. '" + ' .. a() .. ")"
  elseif r == 19 then return '("0x' .. string.format("%x", R(255)) .. '" * ' .. a() .. ")"
  elseif r == 20 then return E(ctx, "obj", d - 1) .. "(" .. a() .. ")"
  elseif r == 21 then return "(#" .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 22 then return E(ctx, "obj", d - 1) .. "." .. pick({ "a", "b" })
  elseif r == 23 then return "PX[" .. a() .. "]"
  elseif r == 24 then return "sumv(mr(" .. a() .. "))"
  elseif r == 25 then return "select('#', mr(" .. a() .. "), mr(" .. a() .. "))"
  elseif r == 26 then return "sumv(" .. a() .. ", mr(" .. a() .. "))"
  elseif r == 27 then return "(string.byte(" .. E(ctx, "str", d - 1) .. ", " .. RR(1, 3) .. ") or 0)"
  elseif r == 28 then return "(" .. a() .. " // 1)"
  elseif r == 29 and ctx.vararg then return pick({ "select('#', ...)", "sumv(...)", "sumv(" .. a() .. ", ...)", "(... or 0)" })
  elseif r <= 32 then return call_or(ctx, "int", d, a)
  else
    return E(ctx, "obj", d - 1) .. ":sum()"
  end
end

function gen.flt(ctx, d)
  if d <= 0 or P(25) then return var_or(60, "flt", lit_flt) end
  local f = function() return E(ctx, "flt", d - 1) end
  local n = function() return num(ctx, d - 1) end
  local r = R(22)
  if r <= 4 then
    if P(50) then return "(" .. f() .. " " .. pick({ "+", "-", "*" }) .. " " .. n() .. ")" end
    return "(" .. n() .. " " .. pick({ "+", "-", "*" }) .. " " .. f() .. ")"
  elseif r <= 6 then return "(" .. n() .. " / " .. n() .. ")"
  elseif r == 7 then return "(" .. f() .. " // " .. n() .. ")"
  elseif r == 8 then return "(" .. f() .. " % " .. n() .. ")"
  elseif r == 9 then return "(" .. n() .. " ^ " .. pick({ "2", "0.5", "3", "(-1)", "0" }) .. ")"
  elseif r == 10 then return "math.sqrt(" .. n() .. ")"
  elseif r == 11 then return "math.abs(" .. f() .. ")"
  elseif r == 12 then return "(" .. E(ctx, "int", d - 1) .. " + 0.0)"
  elseif r == 13 then return "(math.floor(" .. f() .. ") + 0.0)"
  elseif r == 14 then return "(- " .. f() .. ")"
  elseif r == 15 then return '("' .. pick({ "1.5", "2e1", "0.25", "-4.5" }) .. '" * ' .. n() .. ")"
  elseif r == 16 then return "math." .. pick({ "max", "min" }) .. "(" .. f() .. ", " .. f() .. ")"
  elseif r == 17 then return "(" .. E(ctx, "bool", d - 1) .. " and " .. f() .. " or " .. f() .. ")"
  elseif r == 18 then return "math." .. pick({ "sin", "cos", "exp", "log" }) .. "(" .. f() .. ")"
  elseif r == 19 then return "(" .. E(ctx, "int", d - 1) .. " / " .. lit_int() .. ")"
  else return call_or(ctx, "flt", d, f)
  end
end

function gen.str(ctx, d)
  if d <= 0 or P(25) then return var_or(60, "str", lit_str) end
  local s = function() return E(ctx, "str", d - 1) end
  local r = R(22)
  if r <= 4 then
    local k = R(3)
    local other = k == 1 and s() or (k == 2 and E(ctx, "int", d - 1) or E(ctx, "flt", d - 1))
    if P(50) then return "(" .. s() .. " .. " .. other .. ")" end
    return "(" .. other .. " .. " .. s() .. ")"
  elseif r == 5 then return "tostring(" .. num(ctx, d - 1) .. ")"
  elseif r == 6 then return 'string.format("%d", ' .. E(ctx, "int", d - 1) .. ")"
  elseif r == 7 then return 'string.format("' .. pick({ "%5.2f", "%.3f", "%g", "%.14g", "%e" }) .. '", ' .. E(ctx, "flt", d - 1) .. ")"
  elseif r == 8 then return "(" .. s() .. "):" .. pick({ "upper", "lower", "reverse" }) .. "()"
  elseif r == 9 then return "(" .. s() .. "):sub(" .. E(ctx, "int", d - 1) .. ", " .. E(ctx, "int", d - 1) .. ")"
  elseif r == 10 then return "(" .. s() .. "):rep(" .. E(ctx, "int", d - 1) .. " % 3)"
  elseif r == 11 then return "table.concat(" .. E(ctx, "tbl", d - 1) .. ", " .. pick({ '","', '""', '" "' }) .. ")"
  elseif r == 12 then return "string.char(65 + " .. E(ctx, "int", d - 1) .. " % 26)"
  elseif r == 13 then
    -- __concat only ever runs inside vcat (see the prelude)
    if P(50) then return "vcat(" .. E(ctx, "obj", d - 1) .. ", " .. s() .. ")" end
    return "vcat(" .. num(ctx, d - 1) .. ", " .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 14 then return "((" .. s() .. "):gsub(" .. pick({ '"%a"', '"[aeiou]"', '"%d+"', '"(%w)(%w)"' }) .. ", " .. pick({ '"<%0>"', '"_"', '"%1"', "string.upper" }) .. "))"
  elseif r == 15 then return 'string.format("%s|%s", ' .. s() .. ", " .. s() .. ")"
  elseif r == 16 then return "(" .. E(ctx, "bool", d - 1) .. ' and "yes" or "no")'
  elseif r == 17 then return "((" .. s() .. "):match(" .. pick({ '"%a+"', '"%d+"', '"^(.)"', '"(.)$"' }) .. ') or "")'
  elseif r == 18 then return 'string.format("%x", ' .. E(ctx, "int", d - 1) .. ")"
  else return call_or(ctx, "str", d, s)
  end
end

function gen.bool(ctx, d)
  if d <= 0 or P(15) then
    return var_or(50, "bool", function() return pick({ "true", "false" }) end)
  end
  local cmp = pick({ "<", "<=", ">", ">=", "==", "~=" })
  local r = R(12)
  if r <= 3 then return "(" .. E(ctx, "int", d - 1) .. " " .. cmp .. " " .. E(ctx, "int", d - 1) .. ")"
  elseif r == 4 then return "(" .. E(ctx, "flt", d - 1) .. " " .. cmp .. " " .. num(ctx, d - 1) .. ")"
  elseif r == 5 then return "(" .. E(ctx, "str", d - 1) .. " " .. cmp .. " " .. E(ctx, "str", d - 1) .. ")"
  elseif r == 6 then
    return "(" .. E(ctx, "obj", d - 1) .. " " .. pick({ "==", "~=", "<", "<=", ">", ">=" }) .. " " .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 7 then return "(not " .. E(ctx, "bool", d - 1) .. ")"
  elseif r == 8 then return "(" .. E(ctx, "bool", d - 1) .. " " .. pick({ "and", "or" }) .. " " .. E(ctx, "bool", d - 1) .. ")"
  elseif r == 9 then return "(" .. E(ctx, "int", d - 1) .. " % " .. RR(2, 5) .. " == 0)"
  elseif r == 10 then return "(" .. E(ctx, "int", d - 1) .. " == " .. E(ctx, "flt", d - 1) .. ")"
  elseif r == 11 then return "(math.type(" .. num(ctx, d - 1) .. ") == \"integer\")"
  else
    return call_or(ctx, "bool", d, function()
      return "(" .. E(ctx, "int", d - 1) .. " < " .. lit_int() .. ")"
    end)
  end
end

function gen.tbl(ctx, d)
  if d <= 0 or P(50) then
    local v = var_of("tbl")
    if v then return v end
  end
  local r = R(4)
  local items = {}
  if r <= 2 then
    for i = 1, RR(0, 6) do items[i] = E(ctx, "int", math.min(d - 1, 1)) end
    return "({" .. table.concat(items, ", ") .. "})"
  elseif r == 3 then
    return "({" .. E(ctx, "int", d - 1) .. ", mr(" .. E(ctx, "int", d - 1) .. ")})"
  else
    return "({mr(" .. E(ctx, "int", d - 1) .. "), " .. E(ctx, "int", d - 1) .. "})"
  end
end

function gen.obj(ctx, d)
  if d <= 0 or P(40) then
    local v = var_of("obj")
    if v then return v end
    return "vnew(" .. lit_int() .. ", " .. lit_int() .. ")"
  end
  local r = R(10)
  if r == 1 then return "vnew(" .. E(ctx, "int", d - 1) .. ", " .. E(ctx, "int", d - 1) .. ")"
  elseif r == 2 then return "(" .. E(ctx, "obj", d - 1) .. " + " .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 3 then return "(- " .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 4 then return "(" .. E(ctx, "obj", d - 1) .. " - " .. E(ctx, "obj", d - 1) .. ")"
  -- an immediate or constant operand: ADDI/MULK followed by MMBINI/MMBINK
  elseif r == 5 then return "(" .. E(ctx, "obj", d - 1) .. " + " .. RR(-5, 100) .. ")"
  elseif r == 6 then return "(" .. E(ctx, "obj", d - 1) .. " * " .. pick({ "3", "1000", "-7" }) .. ")"
  elseif r == 7 then return "(" .. E(ctx, "int", d - 1) .. " * " .. E(ctx, "obj", d - 1) .. ")"
  elseif r == 8 then return "(" .. E(ctx, "obj", d - 1) .. " " .. pick({ "&", "//" }) .. " " .. E(ctx, "obj", d - 1) .. ")"
  else return E(ctx, "obj", d - 1) .. ":scaled(" .. E(ctx, "int", d - 1) .. ")" end
end

function E(ctx, ty, d)
  return gen[ty](ctx, d)
end

local TYPES = { "int", "int", "int", "flt", "flt", "str", "str", "bool", "tbl", "obj" }

-- statements -----------------------------------------------------------------
local gen_block
local stmt = {}

local function expr_depth() return RR(1, 3) end

local function fit_str(e) return "(" .. e .. "):sub(1, 40)" end

function stmt.local_decl(ctx)
  if active_locals(ctx) >= MAXLOCALS then return stmt.check(ctx) end
  local ty = pick(TYPES)
  local name = fresh(ty:sub(1, 1))
  local e = E(ctx, ty, expr_depth())
  if ty == "str" then e = fit_str(e) end
  if P(10) and ty ~= "tbl" and ty ~= "obj" then
    emit("local " .. name .. " <const> = " .. e)
    declare(name, ty, false)
  else
    emit("local " .. name .. " = " .. e)
    declare(name, ty, true)
  end
  charge(ctx, 1)
end

function stmt.assign(ctx)
  local ty = pick(TYPES)
  local vs = visible(ty, true)
  if #vs == 0 then return stmt.local_decl(ctx) end
  local v = pick(vs).name
  charge(ctx, 1)
  if ty == "str" then emit(v .. " = " .. fit_str(E(ctx, "str", expr_depth())))
  elseif ty == "tbl" then
    local r = R(6)
    if r == 1 then emit(v .. "[" .. E(ctx, "int", 1) .. " % (#" .. v .. " + 1) + 1] = " .. E(ctx, "int", 2))
    elseif r == 2 then emit("if #" .. v .. " < 40 then " .. v .. "[#" .. v .. " + 1] = " .. E(ctx, "int", 2) .. " end")
    elseif r == 3 then emit("if #" .. v .. " < 40 then table.insert(" .. v .. ", " .. E(ctx, "int", 2) .. ") end")
    elseif r == 4 then emit("ck(table.remove(" .. v .. "))")
    elseif r == 5 then emit("table.sort(" .. v .. ")"); charge(ctx, 5)
    else emit(v .. " = " .. E(ctx, "tbl", 2)) end
  elseif P(15) then
    -- multiple assignment / swap among same-typed variables
    local w = pick(vs).name
    emit(v .. ", " .. w .. " = " .. w .. ", " .. v)
  else
    emit(v .. " = " .. E(ctx, ty, expr_depth()))
  end
end

function stmt.check(ctx)
  charge(ctx, 1)
  emit("ck(" .. E(ctx, pick(TYPES), expr_depth()) .. ")")
end

function stmt.print(ctx)
  if not ctx.top or ctx.mult > 1 or prints >= MAXPRINTS then return stmt.check(ctx) end
  prints = prints + 1
  emit("print(" .. string.format("%q", "p" .. prints) .. ", " .. E(ctx, "int", 2) .. ", " ..
       E(ctx, pick({ "str", "flt", "bool" }), 2) .. ", H)")
end

function stmt.if_(ctx)
  charge(ctx, 1)
  local c = derive(ctx, { depth = ctx.depth + 1 })
  emit("if " .. E(ctx, "bool", 2) .. " then")
  gen_block(c, RR(1, 3))
  for _ = 1, RR(0, 2) do
    emit("elseif " .. E(ctx, "bool", 2) .. " then")
    gen_block(c, RR(1, 2))
  end
  if P(50) then
    emit("else")
    gen_block(c, RR(1, 2))
  end
  emit("end")
end

local function loop_body(ctx, k, extra_vars, nstmts)
  local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * k, loop = true })
  indent = indent + 1
  push_scope()
  for _, v in ipairs(extra_vars or {}) do declare(v[1], v[2], v[3]) end
  gen_block(c, nstmts or RR(1, 4), true)
  if P(25) then emit("if " .. E(c, "bool", 2) .. " then break end") end
  pop_scope()
  indent = indent - 1
end

function stmt.numfor(ctx)
  local r = R(5)
  local i = fresh("i")
  if r <= 2 then
    local a, k = RR(-3, 5), RR(1, 8)
    local step = pick({ 1, 1, 2, 3 })
    local b = a + (k - 1) * step
    if not can_loop(ctx, k) then return stmt.check(ctx) end
    if step == 1 and P(50) then emit("for " .. i .. " = " .. a .. ", " .. b .. " do")
    else emit("for " .. i .. " = " .. a .. ", " .. b .. ", " .. step .. " do") end
    loop_body(ctx, k, { { i, "int", true } })
  elseif r == 3 then
    local k = RR(1, 7)
    local step = RR(1, 3)
    local a = RR(5, 20)
    local b = a - (k - 1) * step
    if not can_loop(ctx, k) then return stmt.check(ctx) end
    emit("for " .. i .. " = " .. a .. ", " .. b .. ", -" .. step .. " do")
    loop_body(ctx, k, { { i, "int", true } })
  elseif r == 4 then
    local steps = { "0.5", "0.25", "1.5", "-0.5", "-1.25" }
    local st = pick(steps)
    local sv = tonumber(st)
    local k = RR(1, 8)
    local a = RR(-2, 4) + 0.5
    local b = a + (k - 1) * sv
    if not can_loop(ctx, k) then return stmt.check(ctx) end
    emit(string.format("for %s = %.2f, %.2f, %s do", i, a, b, st))
    loop_body(ctx, k, { { i, "flt", true } })
  else
    local k = RR(2, 8)
    if not can_loop(ctx, k) then return stmt.check(ctx) end
    emit("for " .. i .. " = 1, " .. E(ctx, "int", 2) .. " % " .. k .. " + 1 do")
    loop_body(ctx, k, { { i, "int", true } })
  end
  emit("end")
end

function stmt.while_(ctx)
  local k = RR(1, 8)
  if not can_loop(ctx, k) then return stmt.check(ctx) end
  local w = fresh("w")
  emit("local " .. w .. " = 0")
  declare(w, "int", false)
  emit("while " .. w .. " < " .. k .. " do")
  indent = indent + 1
  emit(w .. " = " .. w .. " + 1")
  indent = indent - 1
  loop_body(ctx, k)
  emit("end")
end

function stmt.repeat_(ctx)
  local k = RR(1, 8)
  if not can_loop(ctx, k) then return stmt.check(ctx) end
  local w = fresh("r")
  emit("local " .. w .. " = 0")
  declare(w, "int", false)
  emit("repeat")
  indent = indent + 1
  emit(w .. " = " .. w .. " + 1")
  indent = indent - 1
  loop_body(ctx, k)
  if P(40) then emit("until " .. w .. " >= " .. k .. " or " .. E(ctx, "bool", 1))
  else emit("until " .. w .. " >= " .. k) end
end

function stmt.goto_loop(ctx)
  local k = RR(1, 8)
  if not can_loop(ctx, k) then return stmt.check(ctx) end
  local g, lbl = fresh("g"), fresh("top")
  emit("do")
  indent = indent + 1
  emit("local " .. g .. " = 0")
  emit("::" .. lbl .. "::")
  emit(g .. " = " .. g .. " + 1")
  push_scope()
  declare(g, "int", false)
  local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * k, loop = false })
  push_scope()
  emit("do")
  indent = indent + 1
  gen_block(c, RR(1, 3))
  indent = indent - 1
  emit("end")
  pop_scope()
  emit("if " .. g .. " < " .. k .. " then goto " .. lbl .. " end")
  pop_scope()
  indent = indent - 1
  emit("end")
end

-- Loops with two entries (irreducible control flow, which Lua's own loops
-- never produce): a goto into the middle of a goto loop, and two labels
-- jumping to each other.
function stmt.irreducible(ctx)
  local k = RR(1, 6)
  if not can_loop(ctx, 2 * k) then return stmt.check(ctx) end
  local g, l1, l2, done = fresh("g"), fresh("ia"), fresh("ib"), fresh("iz")
  local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * 2 * k, loop = false })
  local function body()
    emit(g .. " = " .. g .. " + 1")
    emit("do")
    gen_block(c, RR(1, 2))
    emit("end")
  end
  emit("do")
  indent = indent + 1
  emit("local " .. g .. " = 0")
  push_scope()
  declare(g, "int", false)
  if P(50) then
    emit("if " .. E(ctx, "bool", 2) .. " then goto " .. l2 .. " end")
    emit("::" .. l1 .. "::")
    body()
    emit("::" .. l2 .. "::")
    body()
    emit("if " .. g .. " < " .. 2 * k .. " then goto " .. l1 .. " end")
  else
    emit("::" .. l1 .. "::")
    body()
    emit("if " .. g .. " >= " .. 2 * k .. " then goto " .. done .. " end")
    emit("if " .. E(c, "bool", 2) .. " then goto " .. l1 .. " end")
    emit("::" .. l2 .. "::")
    body()
    emit("if " .. g .. " < " .. 2 * k .. " then goto " .. pick({ l1, l2 }) .. " end")
    emit("::" .. done .. "::")
  end
  pop_scope()
  indent = indent - 1
  emit("end")
end

function stmt.continue_loop(ctx)
  local k = RR(2, 8)
  if not can_loop(ctx, k) then return stmt.check(ctx) end
  local i, lbl = fresh("i"), fresh("continue")
  emit("for " .. i .. " = 1, " .. k .. " do")
  local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * k, loop = true })
  indent = indent + 1
  push_scope()
  declare(i, "int", false)
  gen_block(c, RR(1, 2))
  emit("if " .. E(c, "bool", 2) .. " then goto " .. lbl .. " end")
  gen_block(c, RR(1, 2))
  emit("::" .. lbl .. "::")
  pop_scope()
  indent = indent - 1
  emit("end")
end

function stmt.multi_break(ctx)
  local k1, k2 = RR(2, 5), RR(2, 5)
  if not can_loop(ctx, k1 * k2) then return stmt.check(ctx) end
  local a, b, lbl = fresh("i"), fresh("j"), fresh("out")
  emit("do")
  indent = indent + 1
  emit("for " .. a .. " = 1, " .. k1 .. " do")
  indent = indent + 1
  emit("for " .. b .. " = " .. k2 .. ", 1, -1 do")
  local c = derive(ctx, { depth = ctx.depth + 2, mult = ctx.mult * k1 * k2, loop = true })
  indent = indent + 1
  push_scope()
  declare(a, "int", false)
  declare(b, "int", false)
  gen_block(c, RR(1, 3))
  emit("if " .. E(c, "bool", 2) .. " then goto " .. lbl .. " end")
  pop_scope()
  indent = indent - 1
  emit("end")
  indent = indent - 1
  emit("end")
  emit("::" .. lbl .. "::")
  indent = indent - 1
  emit("end")
end

function stmt.generic_for(ctx)
  local r = R(5)
  local k, v = fresh("k"), fresh("v")
  if r == 1 then
    if not can_loop(ctx, 40) then return stmt.check(ctx) end
    emit("for " .. k .. ", " .. v .. " in ipairs(" .. E(ctx, "tbl", 1) .. ") do")
    loop_body(ctx, 40, { { k, "int", false }, { v, "int", true } }, RR(1, 2))
  elseif r == 2 then
    if not can_loop(ctx, 40) then return stmt.check(ctx) end
    emit("for " .. k .. ", " .. v .. " in pairs(" .. E(ctx, "tbl", 1) .. ") do")
    loop_body(ctx, 40, { { k, "int", false }, { v, "int", true } }, RR(1, 2))
  elseif r == 3 then
    local n = RR(1, 8)
    if not can_loop(ctx, n) then return stmt.check(ctx) end
    emit("for " .. k .. ", " .. v .. " in range(" .. n .. ") do")
    loop_body(ctx, n, { { k, "int", false }, { v, "int", true } })
  elseif r == 4 then
    local n = RR(1, 16)
    if not can_loop(ctx, 8) then return stmt.check(ctx) end
    emit("for " .. k .. " in evens, " .. n .. ", 0 do")
    loop_body(ctx, 8, { { k, "int", false } })
  else
    if not can_loop(ctx, 20) then return stmt.check(ctx) end
    emit("for " .. k .. " in (" .. E(ctx, "str", 1) .. "):gmatch(" .. pick({ '"%a+"', '"."', '"%d"', '"%w+"' }) .. ") do")
    loop_body(ctx, 20, { { k, "str", false } }, RR(1, 2))
  end
  emit("end")
end

-- function definitions ---------------------------------------------------------
local function fn_ctx(ctx, extra)
  local c = derive(ctx, { depth = ctx.depth + 1, mult = 1, loop = false, fn = true, coro = false,
                          vararg = false, top = false, ret = false,
                          acc = { n = 0, max = FN_MAX }, base = #scopes + 1 })
  for k, v in pairs(extra or {}) do c[k] = v end
  return c
end

function stmt.func(ctx)
  if active_locals(ctx) >= MAXLOCALS or ctx.depth >= MAXDEPTH then return stmt.check(ctx) end
  local name = fresh("f")
  local np = RR(0, 3)
  local params, ptypes = {}, {}
  for i = 1, np do
    params[i] = fresh("a")
    ptypes[i] = pick(TYPES)
  end
  local ret = pick({ "int", "int", "flt", "str", "bool" })
  local vararg = P(20)
  local plist = table.concat(params, ", ")
  if vararg then plist = plist .. (np > 0 and ", ..." or "...") end
  emit("local function " .. name .. "(" .. plist .. ")")
  local c = fn_ctx(ctx, { vararg = vararg, ret = ret })
  indent = indent + 1
  push_scope()
  for i = 1, np do declare(params[i], ptypes[i], true) end
  gen_block(c, RR(1, 5))
  emit("return " .. E(c, ret, 2))
  pop_scope()
  indent = indent - 1
  emit("end")
  if vararg then
    -- callable only through explicit statements below; keep it simple: call once
    ptypes[#ptypes + 1] = "int"
  end
  local f = declare(name, "fn", false, { params = ptypes, ret = ret, cost = math.max(1, c.acc.n) + 2 })
  charge(ctx, 1)
  -- call it right away (once or twice) when the cost model allows
  for _ = 1, RR(1, 2) do
    if ctx.mult * f.sig.cost <= MAXMULT * 4 and ctx.acc.n + ctx.mult * f.sig.cost <= ctx.acc.max then
      emit("ck(" .. call_expr(ctx, f, 2) .. ")")
    end
  end
end

function stmt.recursion(ctx)
  if active_locals(ctx) >= MAXLOCALS then return stmt.check(ctx) end
  local name, n, acc = fresh("rec"), fresh("n"), fresh("acc")
  local depthv = RR(1, 25)
  if ctx.mult * depthv > MAXMULT or not budget_left(ctx) then return stmt.check(ctx) end
  local r = R(3)
  if r == 1 then
    emit("local function " .. name .. "(" .. n .. ", " .. acc .. ")")
    indent = indent + 1
    emit("if " .. n .. " <= 0 then return " .. acc .. " end")
    push_scope()
    declare(n, "int", false); declare(acc, "int", false)
    local c = fn_ctx(ctx)
    c.acc = { n = 0, max = 0 } -- no calls from inside the recursion
    emit("return " .. name .. "(" .. n .. " - 1, " .. acc .. " + " .. E(c, "int", 2) .. ")")
    pop_scope()
    indent = indent - 1
    emit("end")
    emit("ck(" .. name .. "(" .. depthv .. ", " .. E(ctx, "int", 1) .. "))")
  elseif r == 2 then
    -- non-tail recursion building a string
    emit("local function " .. name .. "(" .. n .. ")")
    indent = indent + 1
    emit("if " .. n .. " <= 0 then return \"\" end")
    emit("return (" .. n .. " % 10) .. " .. name .. "(" .. n .. " - 1)")
    indent = indent - 1
    emit("end")
    emit("ck(" .. name .. "(" .. depthv .. "))")
  else
    -- tree recursion with small literal depth
    local d = RR(1, 7)
    emit("local function " .. name .. "(" .. n .. ")")
    indent = indent + 1
    emit("if " .. n .. " < 2 then return " .. n .. " end")
    emit("return " .. name .. "(" .. n .. " - 1) + " .. name .. "(" .. n .. " - 2)")
    indent = indent - 1
    emit("end")
    emit("ck(" .. name .. "(" .. d .. "))")
  end
  charge(ctx, 30)
end

function stmt.varargs(ctx)
  local name = fresh("va")
  local r = R(4)
  emit("do")
  indent = indent + 1
  if r == 1 then
    emit("local function " .. name .. "(...)")
    emit("  local n = select('#', ...)")
    emit("  local t = {...}")
    emit("  local s = 0")
    emit("  for i = 1, n do s = s + (t[i] or 0) end")
    emit("  return s, n, ...")
    emit("end")
    emit("ck(" .. name .. "(" .. E(ctx, "int", 1) .. ", mr(" .. E(ctx, "int", 1) .. ")))")
    emit("ck(sumv(" .. name .. "(mr(" .. E(ctx, "int", 1) .. "))))")
    emit("ck(select('#', " .. name .. "()))")
  elseif r == 2 then
    emit("local function " .. name .. "(x, ...)")
    emit("  local p = table.pack(...)")
    emit("  return p.n, x, sumv(..., x), (select(p.n > 0 and p.n or 1, ...))")
    emit("end")
    emit("ck(sumv(" .. name .. "(" .. E(ctx, "int", 1) .. ", " .. E(ctx, "int", 1) .. ", nil, " .. E(ctx, "int", 1) .. ")))")
    emit("local t = {" .. name .. "(1, mr(" .. E(ctx, "int", 1) .. "))}")
    emit("ck(#t) ck(t[1]) ck(t[#t])")
  elseif r == 3 then
    emit("local a, b, c, d = mr(" .. E(ctx, "int", 1) .. ")")
    emit("ck(a) ck(b) ck(c) ck(d)")
    emit("local t = {mr(" .. E(ctx, "int", 1) .. "), mr(" .. E(ctx, "int", 1) .. ")}")
    emit("ck(#t) ck(table.concat(t, \",\"))")
    emit("ck(select(-1, mr(" .. E(ctx, "int", 1) .. ")))")
    emit("ck(string.format(\"%d %d %d\", mr(" .. E(ctx, "int", 1) .. ")))")
  else
    emit("local function " .. name .. "(...) return ... end")
    emit("local t = table.pack(" .. name .. "(" .. E(ctx, "int", 1) .. ", nil, " .. E(ctx, "str", 1) .. "))")
    emit("ck(t.n) ck(t[1]) ck(t[2]) ck(t[3])")
    emit("ck(sumv(table.unpack({" .. E(ctx, "int", 1) .. ", " .. E(ctx, "int", 1) .. ", " .. E(ctx, "int", 1) .. "}, 2)))")
    emit("ck(select('#', table.unpack({}, 1, 3)))")
  end
  indent = indent - 1
  emit("end")
  charge(ctx, 12)
end

function stmt.closures(ctx)
  local k = RR(2, 6)
  if not can_loop(ctx, k * 2) then return stmt.check(ctx) end
  local fs, i, c, j = fresh("fs"), fresh("i"), fresh("c"), fresh("j")
  local r = R(2)
  emit("do")
  indent = indent + 1
  if r == 1 then
    emit("local " .. fs .. " = {}")
    emit("for " .. i .. " = 1, " .. k .. " do")
    push_scope()
    declare(i, "int", false)
    local cx = derive(ctx, { mult = ctx.mult * k })
    emit("  local " .. c .. " = " .. E(cx, "int", 2))
    emit("  " .. fs .. "[#" .. fs .. " + 1] = function(x) " .. c .. " = " .. c .. " + x; return " .. c .. " * " .. i .. " end")
    pop_scope()
    emit("end")
    emit("for " .. j .. " = 1, #" .. fs .. " do ck(" .. fs .. "[" .. j .. "](" .. j .. ")) ck(" .. fs .. "[" .. j .. "](1)) end")
  else
    -- upvalues of upvalues across three function levels
    local mk, a, b = fresh("mk"), fresh("a"), fresh("b")
    emit("local function " .. mk .. "(" .. a .. ")")
    indent = indent + 1
    push_scope()
    declare(a, "int", true)
    local cx = fn_ctx(ctx)
    emit("local " .. b .. " = " .. E(cx, "int", 2))
    declare(b, "int", true)
    emit("return function(x)")
    emit("  local d = " .. a .. " + x")
    emit("  return function(y) " .. b .. " = " .. b .. " + 1; " .. a .. " = " .. a .. " ~ y; return " .. a .. " + " .. b .. " + d + y end")
    emit("end")
    pop_scope()
    indent = indent - 1
    emit("end")
    emit("local g = " .. mk .. "(" .. E(ctx, "int", 1) .. ")(" .. E(ctx, "int", 1) .. ")")
    emit("for " .. j .. " = 1, " .. k .. " do ck(g(" .. j .. ")) end")
  end
  indent = indent - 1
  emit("end")
  charge(ctx, k * 3)
end

function stmt.coroutine(ctx)
  local k = RR(1, 6)
  if not can_loop(ctx, k + 1) or ctx.depth >= MAXDEPTH then return stmt.check(ctx) end
  local co, i, j = fresh("co"), fresh("i"), fresh("j")
  local r = R(3)
  emit("do")
  indent = indent + 1
  if r == 1 then
    -- wrap generator resumed exactly k + 1 times
    local a = fresh("a")
    emit("local " .. co .. " = coroutine.wrap(function(" .. a .. ")")
    indent = indent + 1
    push_scope()
    declare(a, "int", true)
    -- no yields, returns or breaks in the random part: the wrap must be
    -- resumed exactly k + 1 times
    local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * k, loop = false, fn = true,
                            coro = false, vararg = false, top = false, ret = false, base = #scopes })
    emit("for " .. i .. " = 1, " .. k .. " do")
    indent = indent + 1
    push_scope()
    declare(i, "int", false)
    gen_block(c, RR(0, 2))
    emit(a .. " = " .. a .. " + (coroutine.yield(" .. a .. " * " .. i .. ") or 0)")
    pop_scope()
    indent = indent - 1
    emit("end")
    emit("return -1")
    pop_scope()
    indent = indent - 1
    emit("end)")
    emit("ck(" .. co .. "(" .. E(ctx, "int", 1) .. "))")
    emit("for " .. j .. " = 1, " .. k .. " do ck(" .. co .. "(" .. j .. ")) end")
  else
    -- create/resume driven until dead (or a step cap), random yields inside
    local x = fresh("x")
    emit("local " .. co .. " = coroutine.create(function(" .. x .. ")")
    indent = indent + 1
    push_scope()
    declare(x, "int", true)
    local c = derive(ctx, { depth = ctx.depth + 1, fn = true, coro = true, loop = false,
                            vararg = false, top = false, base = #scopes })
    emit("ck(coroutine.isyieldable())")
    if P(50) then emit("ck(YX[" .. x .. "])") end  -- a yield from inside __index
    gen_block(c, RR(1, 4))
    emit("for " .. i .. " = 1, " .. k .. " do " .. x .. " = " .. x .. " + (coroutine.yield(" .. x .. ", " .. i .. ") or 0) end")
    if r == 3 then
      ABANDONS = true
      emit("local ok, e = pcall(function() local v = coroutine.yield(\"in pcall\"); if v % 2 == 0 then error(\"even\" .. v) end; return v end)")
      emit("ck(ok) ck(emsg(e))")
    end
    emit("return " .. x .. ", \"done\"")
    pop_scope()
    indent = indent - 1
    emit("end)")
    emit("local steps = 0")
    emit("while coroutine.status(" .. co .. ") ~= \"dead\" and steps < 100000 do")
    emit("  local ok, v1, v2 = coroutine.resume(" .. co .. ", steps + " .. E(ctx, "int", 1) .. ")")
    emit("  ck(ok) ck(v1) ck(v2)")
    emit("  steps = steps + 1")
    emit("end")
    emit("ck(coroutine.status(" .. co .. ")) ck(steps)")
    emit("ck(coroutine.resume(" .. co .. "))")
  end
  indent = indent - 1
  emit("end")
  charge(ctx, 4 * (k + 1))
end

-- Coroutines left suspended: resumed fewer times than they yield, then
-- dropped, or closed with a pending to-be-closed variable.
function stmt.abandon(ctx)
  local k = RR(2, 6)
  local m = RR(0, k - 1)
  if not can_loop(ctx, k + 1) or ctx.depth >= MAXDEPTH then return stmt.check(ctx) end
  ABANDONS = true
  local co, i, x, j = fresh("co"), fresh("i"), fresh("x"), fresh("j")
  local r = R(3)
  emit("do")
  indent = indent + 1
  if r == 2 then emit("local " .. co .. " = coroutine.wrap(function(" .. x .. ")")
  else emit("local " .. co .. " = coroutine.create(function(" .. x .. ")") end
  indent = indent + 1
  push_scope()
  declare(x, "int", true)
  if r == 3 then
    emit("local c <close> = setmetatable({}, { __close = function() H = (H * 5 + " .. R(999) .. ") & MASK end })")
  end
  local c = derive(ctx, { depth = ctx.depth + 1, mult = ctx.mult * k, loop = false, fn = true,
                          coro = r ~= 2, vararg = false, top = false, ret = false, base = #scopes })
  emit("for " .. i .. " = 1, " .. k .. " do")
  indent = indent + 1
  push_scope()
  declare(i, "int", false)
  gen_block(c, RR(0, 2))
  emit(x .. " = " .. x .. " + (coroutine.yield(" .. x .. " + " .. i .. ") or 0)")
  pop_scope()
  indent = indent - 1
  emit("end")
  emit("return " .. x)
  pop_scope()
  indent = indent - 1
  emit("end)")
  if r == 2 then
    emit("for " .. j .. " = 1, " .. m .. " do ck(" .. co .. "(" .. j .. ")) end")
  else
    emit("for " .. j .. " = 1, " .. m .. " do ck(select(2, coroutine.resume(" .. co .. ", " .. j .. "))) end")
    emit("ck(coroutine.status(" .. co .. "))")
    if r == 3 then emit("ck(coroutine.close(" .. co .. ")) ck(coroutine.status(" .. co .. "))") end
  end
  indent = indent - 1
  emit("end")
  charge(ctx, 3 * (k + 1))
end

function stmt.yield(ctx)
  if not ctx.coro then return stmt.check(ctx) end
  charge(ctx, 2)
  local y = fresh("y")
  if P(25) then
    emit("ck(YX[" .. E(ctx, "int", 1) .. "])")
  elseif active_locals(ctx) < MAXLOCALS and P(50) then
    emit("local " .. y .. " = (coroutine.yield(" .. E(ctx, pick(TYPES), 1) .. ") or 0)")
    declare(y, "int", true)
  else
    emit("coroutine.yield(" .. E(ctx, pick(TYPES), 1) .. ")")
  end
end

function stmt.pcall_(ctx)
  if ctx.depth >= MAXDEPTH then return stmt.check(ctx) end
  ABANDONS = true
  local ok, e = fresh("ok"), fresh("e")
  local r = R(7)
  local x = fresh("x")
  emit("do")
  indent = indent + 1
  if r <= 3 then
    local pf = pick({ "pcall(function(" .. x .. ")", "xpcall(function(" .. x .. ")" })
    emit("local " .. ok .. ", " .. e .. " = " .. pf)
    indent = indent + 1
    push_scope()
    declare(x, "int", true)
    local c = derive(ctx, { depth = ctx.depth + 1, fn = true, loop = false, vararg = false, top = false,
                            coro = false, base = #scopes })
    gen_block(c, RR(1, 3))
    local errv = pick({ '"boom" .. ' .. x, "{ code = " .. x .. " }", '"plain"', x, '"lvl0", 0', '"lvl2", 2' })
    emit("if " .. E(c, "bool", 2) .. " then error(" .. errv .. ") end")
    emit("return " .. x)
    pop_scope()
    indent = indent - 1
    if pf:sub(1, 1) == "x" then
      emit("end, function(m) return \"H:\" .. emsg(m) end, " .. E(ctx, "int", 1) .. ")")
    else
      emit("end, " .. E(ctx, "int", 1) .. ")")
    end
  elseif r == 4 then
    local bad = pick({ "local z = nil; return z + 1", "return ({}) .. \"x\"", "local f; f()",
                       "return #nil", "return {} < {}", "local t = {}; t[nil] = 1",
                       "return vnew(1, 2) + {}", "return 1 // 0", "return (\"x\") | 1",
                       "return math.tointeger(\"x\") + 1", "return (1.5) | 0", "local s <close> = 42",
                       "return string.rep(\"x\", -1, {})", "return setmetatable(1, {})" })
    emit("local " .. ok .. ", " .. e .. " = pcall(function() " .. bad .. " end)")
  elseif r == 5 then
    emit("local " .. ok .. ", " .. e .. " = pcall(function()")
    -- the new function is not vararg: its expressions may not use '...'
    emit("  local ok2, e2 = pcall(error, { code = " .. E(derive(ctx, { vararg = false }), "int", 1) .. " })")
    emit("  e2.code = e2.code + 1")
    emit("  error(e2)")
    emit("end)")
  elseif r == 6 then
    emit("local " .. ok .. ", " .. e .. " = pcall(error)")
  else
    emit("local " .. ok .. ", " .. e .. " = pcall(function(...) return select('#', ...), ... end, " .. E(ctx, "int", 1) .. ", " .. E(ctx, "str", 1) .. ")")
  end
  emit("ck(" .. ok .. ") ck(emsg(" .. e .. "))")
  indent = indent - 1
  emit("end")
  charge(ctx, 6)
end

function stmt.close_(ctx)
  if ctx.depth >= MAXDEPTH then return stmt.check(ctx) end
  local cv = fresh("cl")
  emit("do")
  indent = indent + 1
  emit("local " .. cv .. " <close> = setmetatable({}, { __close = function(_, err) H = (H * 7 + " .. R(1000) .. ") & MASK end })")
  push_scope()
  gen_block(derive(ctx, { depth = ctx.depth + 1 }), RR(1, 3))
  pop_scope()
  indent = indent - 1
  emit("end")
  charge(ctx, 2)
end

function stmt.meta(ctx)
  local r = R(5)
  charge(ctx, 3)
  if r == 1 then
    emit("PX[" .. E(ctx, "int", 2) .. "] = " .. E(ctx, "int", 2))
  elseif r == 2 then
    emit("ck(vcat(" .. E(ctx, "obj", 2) .. ", \"|\"))")
  elseif r == 3 then
    local o = fresh("o")
    if active_locals(ctx) >= MAXLOCALS then return stmt.check(ctx) end
    emit("local " .. o .. " = " .. E(ctx, "obj", 2))
    declare(o, "obj", true)
  elseif r == 4 then
    emit("ck(rawequal(" .. E(ctx, "obj", 1) .. ", " .. E(ctx, "obj", 1) .. ")) ck(rawlen(" .. E(ctx, "tbl", 1) .. "))")
  else
    emit("ck(" .. E(ctx, "obj", 2) .. "(" .. E(ctx, "int", 1) .. ")) ck(#" .. E(ctx, "obj", 1) .. ")")
  end
end

function stmt.ret(ctx)
  if not ctx.fn or not ctx.ret then return stmt.check(ctx) end
  emit("if " .. E(ctx, "bool", 2) .. " then return " .. E(ctx, ctx.ret, 2) .. " end")
end

local STMTS = {
  { stmt.local_decl, 14 }, { stmt.assign, 12 }, { stmt.check, 10 }, { stmt.print, 3 },
  { stmt.if_, 8 }, { stmt.numfor, 7 }, { stmt.while_, 3 }, { stmt.repeat_, 3 },
  { stmt.goto_loop, 2 }, { stmt.continue_loop, 2 }, { stmt.multi_break, 1 },
  { stmt.irreducible, 2 }, { stmt.abandon, 1 },
  { stmt.generic_for, 4 }, { stmt.func, 5 }, { stmt.recursion, 1 }, { stmt.varargs, 2 },
  { stmt.closures, 2 }, { stmt.coroutine, 2 }, { stmt.yield, 3 }, { stmt.pcall_, 3 },
  { stmt.close_, 1 }, { stmt.meta, 3 }, { stmt.ret, 2 },
}
local STMT_TOTAL = 0
for _, s in ipairs(STMTS) do STMT_TOTAL = STMT_TOTAL + s[2] end
local SIMPLE = { stmt.local_decl, stmt.assign, stmt.check, stmt.meta }

local function gen_stmt(ctx)
  if not budget_left(ctx) or ctx.depth >= MAXDEPTH then return pick(SIMPLE)(ctx) end
  local r = R(STMT_TOTAL)
  for _, s in ipairs(STMTS) do
    r = r - s[2]
    if r <= 0 then return s[1](ctx) end
  end
end

-- gen_block emits n statements in a new scope; the caller emits the
-- surrounding keywords. With no_indent the caller already indented.
function gen_block(ctx, n, no_indent)
  if ctx.depth >= 2 and n > 1 then n = n - 1 end
  if not no_indent then indent = indent + 1 end
  push_scope()
  for _ = 1, n do gen_stmt(ctx) end
  pop_scope()
  if not no_indent then indent = indent - 1 end
end

-- program --------------------------------------------------------------------
local PRELUDE = [[
-- generated by tests/gen/gen.lua, seed %d
local MASK = 0xFFFFFFFFFFFF
local H = 0
local function ck(v)
  local t = type(v)
  if t == "number" then
    if math.type(v) == "integer" then H = (H * 31 + v) & MASK
    else
      local s = v ~= v and "nan" or string.format("%%.17g", v)
      for i = 1, #s do H = (H * 33 + s:byte(i)) & MASK end
    end
  elseif t == "string" then
    H = (H * 37 + #v) & MASK
    for i = 1, #v, 3 do H = (H * 33 + v:byte(i)) & MASK end
  elseif t == "boolean" then H = (H * 41 + (v and 1 or 2)) & MASK
  elseif t == "nil" then H = (H * 43 + 3) & MASK
  elseif t == "table" then H = (H * 47 + rawlen(v) + (rawget(v, "a") or 0) + (rawget(v, "b") or 0)) & MASK
  else H = (H * 53 + 5) & MASK end
end
local function emsg(e)
  if type(e) == "table" then return "T" .. tostring(e.code) end
  if type(e) ~= "string" then return type(e) .. ":" .. tostring(e) end
  -- drop the position prefix, variable info and called-function names
  return (e:gsub("^.-:%%-?%%d+: ", ""):gsub(" %%([%%a ]+ '[^']*'%%)$", "")
           :gsub("^(bad argument #%%d+) to '[^']*'", "%%1"))
end
local V = {}
V.__index = V
local function vnew(a, b) return setmetatable({ a = a, b = b }, V) end
V.__add = function(p, q)
  if type(q) == "number" then return vnew(p.a + q, p.b) end
  return vnew(p.a + q.a, p.b + q.b)
end
V.__sub = function(p, q) return vnew(p.a - q.a, p.b - q.b) end
V.__mul = function(p, q)
  if type(p) == "number" then return vnew(p * q.a, p * q.b) end
  return vnew(p.a * q, p.b * q)
end
V.__band = function(p, q) return vnew(p.a & q.a, p.b | q.b) end
V.__idiv = function(p, q) return vnew(p.a // (q.a | 1), p.b // (q.b | 1)) end
V.__unm = function(p) return vnew(-p.a, -p.b) end
V.__eq = function(p, q) return p.a == q.a and p.b == q.b end
V.__lt = function(p, q) return p.a < q.a or (p.a == q.a and p.b < q.b) end
V.__le = function(p, q) return not (q < p) end
V.__call = function(p, x) return p.a * x + p.b end
V.__len = function(p) return (p.a ~ p.b) & 0xFF end
V.__concat = function(x, y)
  local function s(v) if getmetatable(v) == V then return "<" .. v.a .. "," .. v.b .. ">" end return v end
  return s(x) .. s(y)
end
-- Every `..` on a V object happens here: the operands sit in the lowest
-- registers and the unused locals reserve stack headroom, so the __concat
-- call never has to grow the Lua stack. Debian's Lua 5.4.4 mishandles a
-- stack reallocation during a __concat call (wrong result, corrupted locals
-- or a crash, depending on the stack depth), which would make results
-- depend on frame sizes.
local function vcat(x, y)
  local r = x .. y
  local p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16
  local q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16
  return r
end
function V:sum() return self.a + self.b end
function V:scaled(k) return vnew(self.a * k, self.b * k) end
local PXS, PXW = {}, 0
local PX = setmetatable({}, {
  __index = function(_, k) return PXS[k] or (k * 3 + 1) end,
  __newindex = function(_, k, v) PXW = PXW + 1; PXS[k] = v end,
})
local function sumv(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...) or 0) end
  return s
end
local function mr(x) return x, x + 1, x * 2 end
local function range(n)
  local i = 0
  return function() i = i + 1; if i <= n then return i, i * i end end
end
local function evens(lim, c) c = c + 2; if c <= lim then return c end end
-- inside coroutines: reading YX[k] yields k from the __index metamethod
local YX = setmetatable({}, { __index = function(_, k) return (coroutine.yield(k)) or k end })
]]

local function main()
  emit(string.format(PRELUDE, SEED):sub(1, -2))
  push_scope()
  local ctx = { depth = 0, mult = 1, loop = false, fn = false, coro = false, vararg = false,
                top = true, acc = { n = 0, max = BUDGET }, base = 1 }
  local target = RR(0, 100)
  local start = #lines
  local count = 0
  repeat
    gen_stmt(ctx)
    count = count + 1
  until (#lines - start >= target and count >= 4) or count > 400
  pop_scope()
  emit("ck(PXW)")
  emit('print("checksum", H)')
  -- read by tests/system/test_diff_gen.c: with "no", lraf's default mode
  -- must count exactly what the hook counts
  emit("-- abandons: " .. (ABANDONS and "yes" or "no"))
end

main()
io.write(table.concat(lines, "\n"), "\n")
