-- calc.lua: a plugin that evaluates arithmetic such as "2 * (3 + 4)"
-- with an LPeg grammar; the folding is done by Lua functions that LPeg
-- calls back, so lraf counts them.
local lpeg = require "lpeg"
local P, R, S, V, C, Ct = lpeg.P, lpeg.R, lpeg.S, lpeg.V, lpeg.C, lpeg.Ct

local space = S" \t"^0
local number = C(P"-"^-1 * R"09"^1) / tonumber * space
local function sym(s) return C(P(s)) * space end

-- fold {a, op, b, op, c...} left to right
local function fold(t)
  local acc = t[1]
  for i = 2, #t, 2 do
    local op, x = t[i], t[i + 1]
    if op == "+" then acc = acc + x
    elseif op == "-" then acc = acc - x
    elseif op == "*" then acc = acc * x
    else acc = acc // x end
  end
  return acc
end

local grammar = P{
  "expr",
  expr = Ct(V"term" * ((sym"+" + sym"-") * V"term")^0) / fold,
  term = Ct(V"factor" * ((sym"*" + sym"/") * V"factor")^0) / fold,
  factor = number + "(" * space * V"expr" * ")" * space,
}
local line = space * grammar * -1

return {
  name = "calc",
  handle = function(input)
    local value = line:match(input)
    if value == nil then error("cannot parse: " .. input) end
    return input .. " = " .. value
  end,
}
