-- String building with gsub: records made from a private LCG are
-- rendered through templates (table and function replacements with
-- captures), escaped, renamed, reformatted and collected with
-- table.concat; the finished documents are then rewritten again by
-- whole-text gsub passes.  Prints sample lines, sizes and hashes.

local gsub, format, byte, rep = string.gsub, string.format, string.byte, string.rep
local concat = table.concat

local seed = 9001
local function rand(n)
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return (seed >> 4) % n
end

local SYLLABLES = { "ka", "lo", "mi", "ran", "to", "sel", "vu", "ne", "dor", "pi" }
local TAGS = { "<b>", "&", "\"q\"", "<i>", "plain", "a>b" }

local function word(parts)
  local t = {}
  for i = 1, parts do t[i] = SYLLABLES[rand(#SYLLABLES) + 1] end
  return concat(t)
end

-- camelCase from a word list: first word lower, the rest capitalised
local function camel(a, b, c)
  return a .. gsub(b, "^%l", string.upper) .. gsub(c, "^%l", string.upper)
end

local function make_record(i)
  return {
    id = i,
    name = word(2 + rand(2)),
    field = camel(word(1), word(2), word(1)),
    amount = rand(5000000),
    note = TAGS[rand(#TAGS) + 1] .. " " .. word(1),
    ratio = rand(1000) / 8,
  }
end

local ESCAPES = { ["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;", ['"'] = "&quot;" }

local function escape(s)
  return (gsub(s, '[<>&"]', ESCAPES))
end

local function snake(s)
  return (gsub(s, "(%l)(%u)", "%1_%2"):lower())
end

-- "1234567" -> "1,234,567"
local function thousands(digits)
  local s, n = digits, 1
  while n > 0 do
    s, n = gsub(s, "^(%d+)(%d%d%d)", "%1,%2")
  end
  return s
end

-- ${key} from a table (missing keys stay as they are), %{key:width}
-- through a function that pads to the width.
local function expand(template, vars)
  local s = gsub(template, "%${(%w+)}", vars)
  s = gsub(s, "%%{(%w+):(%d+)}", function(key, width)
    local v = tostring(vars[key])
    return v .. rep(".", tonumber(width) - #v)
  end)
  return s
end

local LINE = "%{id:6}| ${name} (${field}) amount=${amount} ratio=${ratio} [${note}] ${missing}"

local function render(records)
  local out = {}
  for i, r in ipairs(records) do
    local vars = {
      id = r.id,
      name = r.name:upper(),
      field = snake(r.field),
      amount = thousands(tostring(r.amount)),
      ratio = format("%.3f", r.ratio),
      note = escape(r.note),
    }
    out[i] = expand(LINE, vars)
  end
  return concat(out, "\n")
end

-- Whole-document passes.
local function postprocess(doc)
  local n_amp, n_words
  -- collapse entity names to short markers, counting them
  doc, n_amp = gsub(doc, "&(%a+);", { lt = "{<}", gt = "{>}", amp = "{&}" })
  -- swap the two words of every "(a_b_c)" group's first two parts
  doc = gsub(doc, "%((%a+)_(%a+)", "(%2_%1")
  -- balanced brackets: replace [..] contents with their length
  doc = gsub(doc, "%b[]", function(b) return "[" .. (#b - 2) .. "]" end)
  -- frontier: capitalise words starting with "ka"
  doc, n_words = gsub(doc, "%f[%w]ka(%w*)", "KA%1")
  -- position captures: mark where each "|" sits in its line
  doc = gsub(doc, "()|", function(pos) return "|" .. (pos % 97) .. ":" end)
  -- trim trailing spaces of each line
  doc = gsub(doc, " +\n", "\n")
  return doc, n_amp, n_words
end

local function hash(doc)
  local h = 0
  gsub(doc, "[^\n]+", function(line)
    h = (h * 31 + #line + byte(line, 1) * 7 + byte(line, -1)) & 0xffffffff
  end)
  return h
end

local total = 0
for round = 1, 24 do
  local records = {}
  for i = 1, 300 do records[i] = make_record(round * 1000 + i) end
  local doc = render(records)
  local final, n_amp, n_words = postprocess(doc)
  local lines = select(2, gsub(final, "\n", "\n")) + 1
  total = total + #final
  if round == 1 then
    local shown = 0
    for line in final:gmatch("[^\n]+") do
      print(line)
      shown = shown + 1
      if shown == 4 then break end
    end
  end
  print(format("round %2d: raw %6d final %6d lines %d entities %d ka-words %d hash %08x",
               round, #doc, #final, lines, n_amp, n_words, hash(final)))
end
print("total chars", total)
