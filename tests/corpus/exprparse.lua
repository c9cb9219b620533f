-- exprparse.lua: a parser and evaluator for Lua's expression syntax,
-- written in Lua.  A tokenizer (numbers in decimal and hex, names,
-- strings, multi-character operators), a precedence-climbing parser with
-- Lua's priority table (right-associative `..` and `^`, unary operators
-- binding tighter than binary ones except `^`), an evaluator with
-- variables, short-circuit and/or and Lua's integer/float rules, a
-- printer back to fully parenthesised text, and a check of thousands of
-- generated expressions against load().

local function tokenize(src)
  local toks, pos = {}, 1
  local ops3 = {["..."] = true}
  local ops2 = {["=="] = true, ["~="] = true, ["<="] = true, [">="] = true, ["//"] = true,
                ["<<"] = true, [">>"] = true, [".."] = true}
  while pos <= #src do
    local c = src:sub(pos, pos)
    if c:match("%s") then
      pos = pos + 1
    elseif src:match("^0[xX]%x", pos) then
      local s, e = src:find("^0[xX]%x+", pos)
      toks[#toks + 1] = {k = "num", v = math.tointeger(tonumber(src:sub(s, e)))}
      pos = e + 1
    elseif c:match("%d") then
      local s, e = src:find("^%d+%.?%d*[eE][%+%-]?%d+", pos)
      if not s then s, e = src:find("^%d+%.?%d*", pos) end
      local text = src:sub(s, e)
      toks[#toks + 1] = {k = "num", v = tonumber(text)}
      pos = e + 1
    elseif c:match("[%a_]") then
      local s, e = src:find("^[%w_]+", pos)
      local w = src:sub(s, e)
      if w == "and" or w == "or" or w == "not" then toks[#toks + 1] = {k = "op", v = w}
      elseif w == "true" or w == "false" then toks[#toks + 1] = {k = "lit", v = w == "true"}
      elseif w == "nil" then toks[#toks + 1] = {k = "nil"}
      else toks[#toks + 1] = {k = "name", v = w} end
      pos = e + 1
    elseif c == '"' then
      local e = src:find('"', pos + 1, true)
      toks[#toks + 1] = {k = "str", v = src:sub(pos + 1, e - 1)}
      pos = e + 1
    else
      local three, two = src:sub(pos, pos + 2), src:sub(pos, pos + 1)
      if ops3[three] then toks[#toks + 1] = {k = "op", v = three}; pos = pos + 3
      elseif ops2[two] then toks[#toks + 1] = {k = "op", v = two}; pos = pos + 2
      else toks[#toks + 1] = {k = "op", v = c}; pos = pos + 1 end
    end
  end
  toks[#toks + 1] = {k = "eof"}
  return toks
end

-- Lua 5.4 priorities: {left, right}
local binary = {
  ["or"] = {1, 1}, ["and"] = {2, 2},
  ["<"] = {3, 3}, [">"] = {3, 3}, ["<="] = {3, 3}, [">="] = {3, 3}, ["~="] = {3, 3}, ["=="] = {3, 3},
  ["|"] = {4, 4}, ["~"] = {5, 5}, ["&"] = {6, 6}, ["<<"] = {7, 7}, [">>"] = {7, 7},
  [".."] = {9, 8}, ["+"] = {10, 10}, ["-"] = {10, 10},
  ["*"] = {11, 11}, ["/"] = {11, 11}, ["//"] = {11, 11}, ["%"] = {11, 11},
  ["^"] = {14, 13},
}
local UNARY = 12

local function parse(src)
  local toks, i = tokenize(src), 1
  local function peek() return toks[i] end
  local function take() i = i + 1; return toks[i - 1] end
  local expr
  local function primary()
    local t = take()
    if t.k == "num" or t.k == "str" or t.k == "lit" then return {tag = "const", v = t.v} end
    if t.k == "nil" then return {tag = "const", v = nil} end
    if t.k == "name" then return {tag = "var", name = t.v} end
    if t.k == "op" and t.v == "(" then
      local e = expr(0)
      assert(take().v == ")", "expected )")
      return {tag = "paren", e = e}
    end
    error("unexpected token " .. tostring(t.v))
  end
  function expr(limit)
    local left
    local t = peek()
    if t.k == "op" and (t.v == "-" or t.v == "not" or t.v == "#" or t.v == "~") then
      take()
      left = {tag = "un", op = t.v, e = expr(UNARY)}
    else
      left = primary()
    end
    while true do
      local op = peek()
      local pr = op.k == "op" and binary[op.v]
      if not pr or pr[1] <= limit then break end
      take()
      left = {tag = "bin", op = op.v, l = left, r = expr(pr[2])}
    end
    return left
  end
  local e = expr(0)
  assert(peek().k == "eof", "trailing input")
  return e
end

local arith = {
  ["+"] = function(a, b) return a + b end, ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end, ["/"] = function(a, b) return a / b end,
  ["//"] = function(a, b) return a // b end, ["%"] = function(a, b) return a % b end,
  ["^"] = function(a, b) return a ^ b end, [".."] = function(a, b) return a .. b end,
  ["&"] = function(a, b) return a & b end, ["|"] = function(a, b) return a | b end,
  ["~"] = function(a, b) return a ~ b end, ["<<"] = function(a, b) return a << b end,
  [">>"] = function(a, b) return a >> b end,
  ["=="] = function(a, b) return a == b end, ["~="] = function(a, b) return a ~= b end,
  ["<"] = function(a, b) return a < b end, ["<="] = function(a, b) return a <= b end,
  [">"] = function(a, b) return a > b end, [">="] = function(a, b) return a >= b end,
}
local function eval(n, env)
  local tag = n.tag
  if tag == "const" then return n.v end
  if tag == "var" then return env[n.name] end
  if tag == "paren" then return eval(n.e, env) end
  if tag == "un" then
    local v = eval(n.e, env)
    if n.op == "-" then return -v elseif n.op == "not" then return not v
    elseif n.op == "#" then return #v else return ~v end
  end
  if n.op == "and" then local a = eval(n.l, env); if not a then return a end return eval(n.r, env) end
  if n.op == "or" then local a = eval(n.l, env); if a then return a end return eval(n.r, env) end
  return arith[n.op](eval(n.l, env), eval(n.r, env))
end

local function show(n)
  local tag = n.tag
  if tag == "const" then
    if type(n.v) == "string" then return string.format("%q", n.v) end
    return tostring(n.v)
  end
  if tag == "var" then return n.name end
  if tag == "paren" then return show(n.e) end
  if tag == "un" then return "(" .. n.op .. (n.op == "not" and " " or "") .. show(n.e) .. ")" end
  return "(" .. show(n.l) .. " " .. n.op .. " " .. show(n.r) .. ")"
end

local env = {x = 7, y = -3, z = 2.5, s = "str", t = true, f = false, big = math.maxinteger}
local samples = {
  "1 + 2 * 3 - 4 / 2",
  "2 ^ 3 ^ 2",
  "-2 ^ 2",
  "not 1 == 2",
  "1 .. 2 .. 3",
  "x // 2 + x % -3 * y",
  "1 << 4 | 3 & 5 ~ 6",
  "s .. x .. z",
  "f or t and x",
  "nil or f",
  "#s + #\"abc\" * 2",
  "~x & 0xFF",
  "big + 1 == -big - 1",
  "x < y or z >= 2.5 and not (x ~= 7)",
  "(1 + 2) * (3 + 4) // 5",
  "7 // 0.0",
  "-7 % 0.0 ~= -7 % 0.0",
  "2 ^ -1 + 1e2 + 0x10",
}
for _, src in ipairs(samples) do
  local tree = parse(src)
  local mine = eval(tree, env)
  local theirs = load("local x, y, z, s, t, f, big = ...; return " .. src)(env.x, env.y, env.z, env.s, env.t,
                                                                           env.f, env.big)
  local same = mine == theirs and math.type(mine) == math.type(theirs)
  if mine ~= mine and theirs ~= theirs then same = true end -- NaN
  print("expr", show(tree), "=", tostring(mine), same)
end

-- random integer expressions checked against load(); divisors and moduli
-- are nonzero literals so nothing raises an error
local seed = 1234
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return (seed >> 16) % n end
local int_ops = {"+", "-", "*", "//", "%", "&", "|", "~", "<<", ">>"}
local function gen(d)
  if d <= 0 or rnd(4) == 0 then
    local k = rnd(4)
    if k == 0 then return tostring(rnd(100)) end
    if k == 1 then return ({"x", "y", "w"})[rnd(3) + 1] end
    if k == 2 then return string.format("0x%x", rnd(4096)) end
    return "(" .. ({"-", "~"})[rnd(2) + 1] .. gen(d - 1) .. ")"
  end
  local op = int_ops[rnd(#int_ops) + 1]
  if op == "//" or op == "%" then return gen(d - 1) .. " " .. op .. " " .. tostring(1 + rnd(9)) end
  if op == "<<" or op == ">>" then return gen(d - 1) .. " " .. op .. " " .. tostring(rnd(70)) end
  local e = gen(d - 1) .. " " .. op .. " " .. gen(d - 1)
  if rnd(3) == 0 then e = "(" .. e .. ")" end
  return e
end
local agree, total, acc = 0, 0, 0
local renv = {x = 12345, y = -678, w = 1 << 40}
for _ = 1, 700 do
  local src = gen(5)
  local cmp = ({"<", "<=", "==", "~="})[rnd(4) + 1]
  local full = src .. " " .. cmp .. " " .. gen(2) .. " and " .. gen(2) .. " or " .. gen(1)
  for _, text in ipairs({src, full}) do
    total = total + 1
    local mine = eval(parse(text), renv)
    local theirs = load("local x, y, w = ...; return " .. text)(renv.x, renv.y, renv.w)
    if mine == theirs and math.type(mine) == math.type(theirs) then agree = agree + 1 end
    if math.type(mine) == "integer" then acc = acc ~ mine end
  end
end
print("random", agree, total, acc)

-- round trip: printing a tree and parsing the printout gives the same text
local stable = 0
for _ = 1, 300 do
  local once = show(parse(gen(4)))
  if show(parse(once)) == once then stable = stable + 1 end
end
print("roundtrip", stable)
