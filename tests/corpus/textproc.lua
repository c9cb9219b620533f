-- textproc.lua: pattern-heavy text processing.  A gmatch tokenizer for
-- a small language, CSV parsing with quoted fields, template expansion
-- with gsub and a function/table replacement, word frequencies with
-- sorted output, run-length encoding both ways, a Caesar/ROT13 pass with
-- gsub over character classes, line wrapping, trimming and splitting
-- helpers, anchored and frontier patterns, and balanced-match (%b)
-- extraction, all on generated text.

-- generated text from a fixed vocabulary and an LCG
local vocab = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
               "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau"}
local seed = 777
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return (seed >> 16) % n end
local words = {}
for i = 1, 15000 do
  local w = vocab[rnd(#vocab) + 1]
  if rnd(9) == 0 then w = w:sub(1, 1):upper() .. w:sub(2) end
  if rnd(13) == 0 then w = w .. "," end
  if rnd(17) == 0 then w = w .. "." end
  words[i] = w
end
local text = table.concat(words, " ")

-- word frequencies, case-folded, sorted by count then word (the list is
-- built in vocabulary order, not pairs order: string hashes are seeded
-- at random, and the sort's work depends on its input order)
local freq = {}
for w in text:gmatch("%a+") do
  w = w:lower()
  freq[w] = (freq[w] or 0) + 1
end
local list = {}
for _, w in ipairs(vocab) do
  if freq[w] then list[#list + 1] = {w = w, n = freq[w]} end
end
table.sort(list, function(a, b) if a.n ~= b.n then return a.n > b.n end return a.w < b.w end)
local top = {}
for i = 1, 5 do top[i] = list[i].w .. "=" .. list[i].n end
print("freq", #list, table.concat(top, " "))

-- sentences and punctuation counts
local sentences = 0
for _ in text:gmatch("[^%.]+%.") do sentences = sentences + 1 end
local _, commas = text:gsub(",", ",")
local _, caps = text:gsub("%f[%a]%u", "")
print("punct", sentences, commas, caps, #text)

-- a tokenizer for a small language
local function lex(src)
  local toks = {}
  local pos = 1
  local rules = {
    {"^%s+", nil},
    {"^%-%-[^\n]*", nil},
    {"^%d+%.%d+", "float"},
    {"^%d+", "int"},
    {"^[%a_][%w_]*", "name"},
    {'^"[^"]*"', "string"},
    {"^[=<>~]=", "op"},
    {"^[%+%-%*/%%=<>%(%){},;]", "op"},
  }
  while pos <= #src do
    local matched = false
    for _, r in ipairs(rules) do
      local s, e = src:find(r[1], pos)
      if s then
        if r[2] then toks[#toks + 1] = r[2] .. ":" .. src:sub(s, e) end
        pos = e + 1
        matched = true
        break
      end
    end
    if not matched then toks[#toks + 1] = "bad:" .. src:sub(pos, pos); pos = pos + 1 end
  end
  return toks
end
local program = [[
  let x = 10; -- a comment
  let y = x * 2.5 + foo(3, "hi");
  if x >= y { print("big") } else { z = x ~= 1 }
  @
]]
local toks = lex(program)
print("lex", #toks, table.concat(toks, " ", 1, 12))
print("lex", table.concat(toks, " ", #toks - 8))
local big_src = {}
for i = 1, 300 do
  big_src[#big_src + 1] = string.format("let v%d = v%d * %d + %d.5; -- step %d\n", i, i - 1, i % 7, i, i)
end
local ltoks = lex(table.concat(big_src))
local kinds = {}
for _, t in ipairs(ltoks) do local k = t:match("^(%a+):"); kinds[k] = (kinds[k] or 0) + 1 end
print("lex-big", #ltoks, kinds.name, kinds.int, kinds.float, kinds.op)

-- CSV with quoted fields and doubled quotes
local function parse_csv_line(line)
  local fields, pos = {}, 1
  while true do
    if line:sub(pos, pos) == '"' then
      local buf, i = {}, pos + 1
      while true do
        local q = line:find('"', i, true)
        buf[#buf + 1] = line:sub(i, q - 1)
        if line:sub(q + 1, q + 1) == '"' then buf[#buf + 1] = '"'; i = q + 2
        else pos = q + 1; break end
      end
      fields[#fields + 1] = table.concat(buf)
    else
      local e = line:find(",", pos, true) or #line + 1
      fields[#fields + 1] = line:sub(pos, e - 1)
      pos = e
    end
    if line:sub(pos, pos) ~= "," then break end
    pos = pos + 1
  end
  return fields
end
local csv = {
  'name,qty,note',
  'apple,3,"crisp, red"',
  '"Smith, J.",12,"said ""hi"""',
  ',,',
  'x,"",y',
}
for _, l in ipairs(csv) do
  local f = parse_csv_line(l)
  for i = 1, #f do f[i] = "[" .. f[i] .. "]" end
  print("csv", #f, table.concat(f))
end

-- templates: ${name} from a table, $(expr) through a function
local vars = {user = "ada", n = 3, lang = "Lua"}
local function expand(tpl)
  tpl = tpl:gsub("%${(%w+)}", function(k) return tostring(vars[k] or "?") end)
  tpl = tpl:gsub("%$(%b())", function(e)
    local a, op, b = e:match("^%((%d+)%s*([%+%*])%s*(%d+)%)$")
    if not a then return "<" .. e .. ">" end
    if op == "+" then return tostring(tonumber(a) + tonumber(b)) end
    return tostring(tonumber(a) * tonumber(b))
  end)
  return tpl
end
print("tpl", expand("Hi ${user}, you have ${n} ${things} in ${lang}: $(2 + 40) $(6 * 7) $(oops)"))
print("tpl", (("%d items"):rep(2, "; "):gsub("%%d", {["%d"] = "N"})), ("abc"):gsub("", "-"))

-- run-length encoding both ways
local function rle(s)
  local out = {}
  local i = 1
  while i <= #s do
    local c = s:sub(i, i)
    local j = i
    while s:sub(j + 1, j + 1) == c do j = j + 1 end
    local n = j - i + 1
    out[#out + 1] = (n > 1 and tostring(n) or "") .. c
    i = j + 1
  end
  return table.concat(out)
end
local function unrle(s)
  return (s:gsub("(%d*)(%D)", function(n, c) return c:rep(n == "" and 1 or tonumber(n)) end))
end
local runs = {}
for i = 1, 400 do runs[i] = string.char(97 + rnd(3)):rep(1 + rnd(6)) end
local rs = table.concat(runs)
local enc = rle(rs)
print("rle", #rs, #enc, unrle(enc) == rs, rle("aaabccddddd"), unrle("3x2yz"))

-- ROT13 and a Caesar shift over letters only
local function caesar(s, k)
  return (s:gsub("%a", function(c)
    local base = c:match("%l") and 97 or 65
    return string.char((c:byte() - base + k) % 26 + base)
  end))
end
local sample = "Hello, World! Lua 5.4 patterns."
print("rot13", caesar(sample, 13), caesar(caesar(sample, 13), 13) == sample, caesar("xyz ABC", 3))

-- wrapping text at a width, splitting and trimming
local function wrap(s, width)
  local lines, line = {}, ""
  for w in s:gmatch("%S+") do
    if #line + #w + 1 > width and #line > 0 then lines[#lines + 1] = line; line = w
    elseif #line == 0 then line = w
    else line = line .. " " .. w end
  end
  if #line > 0 then lines[#lines + 1] = line end
  return lines
end
local wrapped = wrap(text, 60)
local longest = 0
for _, l in ipairs(wrapped) do if #l > longest then longest = #l end end
print("wrap", #wrapped, longest, wrapped[1])
local function split(s, sep)
  local out = {}
  for piece in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = piece end
  return out
end
local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end
local parts = split("  a | b|| c  |d ", "|")
for i = 1, #parts do parts[i] = "<" .. trim(parts[i]) .. ">" end
print("split", #parts, table.concat(parts), #split("a.b.c", "."), trim("   "), "|")

-- frontier and anchors, balanced matches
local fr = {}
for w in ("THE (quick) [brown] {fox} the end"):gmatch("%f[%w]%w+%f[%W]") do fr[#fr + 1] = w end
local bal = {}
for b in ("f(a, g(b, c), (d)) + h(e)"):gmatch("%b()") do bal[#bal + 1] = b end
print("frontier", table.concat(fr, ","), table.concat(bal, " "), ("x = 1"):match("^(%w+)%s*=%s*(%d+)$"))
print("find", ("a.b.c"):find(".", 1, true), ("a.b.c"):find("%."), ("abc"):find("b", -1), ("hello"):match("(h)(e)(l+)"))

-- a big gsub pass: normalise all words, count replacements
local norm, nrep = text:gsub("(%a+)([,.]?)", function(w, p)
  if #w > 5 then return w:sub(1, 3):upper() .. p end
end)
local h = 0
for i = 1, #norm, 11 do h = (h * 131 + norm:byte(i)) % 1000000007 end
print("gsub", nrep, #norm, h)
