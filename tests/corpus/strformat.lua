-- strformat.lua: building text.  string.format field widths, flags and
-- precisions for %d/%i/%u-free integer forms, %x/%X/%o, %e/%f/%g, %s
-- with precision, %c, %%, %q round trips through load; string.rep with
-- separators; byte/char round trips over all 256 bytes; a text table
-- renderer with alignment; number-to-words and Roman numerals;
-- buffer-style building with table.concat versus repeated .. .

local function show(label, ...) print(label, ...) end

-- integers
show("d", string.format("[%5d][%-5d][%05d][%+d][% d][%d]", 42, 42, 42, 42, 42, -42))
show("x", string.format("[%x][%X][%#x][%08X][%o][%#o]", 255, 255, 255, 48879, 8, 8))
show("neg", string.format("[%x][%d][%5.3d]", -1, math.mininteger, 7))
-- floats
show("f", string.format("[%.3f][%10.2f][%-10.1f][%+.0f][%f]", math.pi, -2.5, 1 / 3, 2.5, 1e-7))
show("e", string.format("[%e][%.2e][%E][%12.4e]", 12345.678, 0.000123, 1e300, -5.5))
show("g", string.format("[%g][%g][%g][%.3g][%#g][%g]", 100000, 1000000, 1e-5, 2 / 3, 1.5, 0.1))
show("a-free", string.format("%.14g|%.17g|%.1f|%5.1f", 0.1, 0.1, 0.05, 9.95))
-- strings and characters
show("s", string.format("[%s][%10s][%-10s][%.3s][%5.2s]", "abc", "right", "left", "truncate", "xyz"))
show("c", string.format("[%c%c%c][%%][%s]", 76, 117, 97, nil))
show("s-any", string.format("%s %s %s %s", 1, 1.0, true, 2^63))

-- %q round trips through load
local samples = {
  "plain", "with \"quotes\" and \\", "new\nline", "nul\0byte", "tab\tand\r",
  "\1\2\3\127\200\255", 0, -1, math.maxinteger, math.mininteger, 1.5, -0.25,
  1 / 0, -1 / 0, 2^53, 1e100,
}
local okq = 0
for i, v in ipairs(samples) do
  local q = string.format("%q", v)
  local back = load("return " .. q)()
  if back == v and math.type(back) == math.type(v) then okq = okq + 1 end
end
show("q", okq, #samples, string.format("%q", "a\nb"), string.format("%q", 255), string.format("%q", 0.5))

-- rep with and without separators, including empty pieces
show("rep", ("ab"):rep(3), ("ab"):rep(3, ","), ("x"):rep(0, "-"), ("x"):rep(1, "-"),
     (""):rep(4, "."), ("-"):rep(-2), #("abc"):rep(1000, "de"))

-- byte/char round trips
local all = {}
for b = 0, 255 do all[#all + 1] = string.char(b) end
local s256 = table.concat(all)
local bytes = {s256:byte(1, -1)}
local same = #bytes == 256
for i = 1, 256 do if bytes[i] ~= i - 1 then same = false end end
show("bytes", #s256, same, string.char(table.unpack(bytes)) == s256,
     s256:byte(-1), s256:byte(66), select("#", s256:byte(10, 5)), ("abc"):byte(0))
show("case", s256:sub(66, 91):lower(), s256:sub(98, 123):upper(), ("MiXeD"):lower(), ("MiXeD"):upper())
show("rev", ("stressed"):reverse(), (""):reverse(), #s256:reverse())

-- a text table renderer
local function render(headers, rows)
  local widths = {}
  for c, h in ipairs(headers) do widths[c] = #h end
  for _, r in ipairs(rows) do
    for c, cell in ipairs(r) do
      local s = tostring(cell)
      if #s > widths[c] then widths[c] = #s end
    end
  end
  local lines = {}
  local function fmt_row(r)
    local cells = {}
    for c, cell in ipairs(r) do
      if type(cell) == "number" then
        cells[c] = string.format("%" .. widths[c] .. "s", tostring(cell))
      else
        cells[c] = string.format("%-" .. widths[c] .. "s", cell)
      end
    end
    return "| " .. table.concat(cells, " | ") .. " |"
  end
  lines[1] = fmt_row(headers)
  local seps = {}
  for c = 1, #headers do seps[c] = ("-"):rep(widths[c]) end
  lines[2] = "|-" .. table.concat(seps, "-|-") .. "-|"
  for _, r in ipairs(rows) do lines[#lines + 1] = fmt_row(r) end
  return table.concat(lines, "\n")
end
print(render({"name", "qty", "price"},
             {{"apple", 3, 1.25}, {"watermelon", 12, 0.5}, {"fig", 100, 12.125}}))

-- number to English words
local ones = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
              "seventeen", "eighteen", "nineteen"}
local tens = {"", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
local function words(n)
  if n == 0 then return "zero" end
  local parts = {}
  local function under1000(x)
    local p = {}
    if x >= 100 then p[#p + 1] = ones[x // 100] .. " hundred"; x = x % 100 end
    if x >= 20 then
      p[#p + 1] = tens[x // 10] .. (x % 10 > 0 and "-" .. ones[x % 10] or "")
    elseif x > 0 then
      p[#p + 1] = ones[x]
    end
    return table.concat(p, " ")
  end
  local scales = {{1000000000, "billion"}, {1000000, "million"}, {1000, "thousand"}}
  for _, sc in ipairs(scales) do
    if n >= sc[1] then
      parts[#parts + 1] = under1000(n // sc[1]) .. " " .. sc[2]
      n = n % sc[1]
    end
  end
  if n > 0 then parts[#parts + 1] = under1000(n) end
  return table.concat(parts, " ")
end
print("words", words(0), "|", words(13), "|", words(85), "|", words(1999), "|", words(1000001))
print("words", words(2147483647))

-- Roman numerals both ways, checked over a range
local romans = {{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
                {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}}
local function to_roman(n)
  local buf = {}
  for _, r in ipairs(romans) do
    while n >= r[1] do buf[#buf + 1] = r[2]; n = n - r[1] end
  end
  return table.concat(buf)
end
local values = {I = 1, V = 5, X = 10, L = 50, C = 100, D = 500, M = 1000}
local function from_roman(s)
  local total = 0
  for i = 1, #s do
    local v, nxt = values[s:sub(i, i)], values[s:sub(i + 1, i + 1)]
    if nxt and nxt > v then total = total - v else total = total + v end
  end
  return total
end
local rbad, rlen = 0, 0
for n = 1, 3999 do
  local r = to_roman(n)
  rlen = rlen + #r
  if from_roman(r) ~= n then rbad = rbad + 1 end
end
print("roman", to_roman(1994), to_roman(3888), from_roman("MMXXIV"), rbad, rlen)

-- building a large string: buffer versus repeated concatenation, same text
local buf = {}
for i = 1, 3000 do buf[#buf + 1] = string.format("%04x:%-6s;", i * 37 % 65536, words(i % 120):sub(1, 6)) end
local joined = table.concat(buf)
local cat = ""
for i = 1, 600 do cat = cat .. buf[i] end
local h = 0
for i = 1, #joined, 7 do h = (h * 131 + joined:byte(i)) % 1000000007 end
print("build", #joined, joined:sub(1, #cat) == cat, h, joined:sub(-24))

-- column formatting of a multiplication table
local mt = {}
for i = 1, 12 do
  local row = {}
  for j = 1, 12 do row[j] = string.format("%4d", i * j) end
  mt[i] = table.concat(row)
end
print(mt[1]); print(mt[7]); print(mt[12])
