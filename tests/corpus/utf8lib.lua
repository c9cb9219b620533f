-- utf8 library: char, charpattern, codes (strict and lax), codepoint with
-- ranges, len (valid and invalid input), offset (forward, backward,
-- continuation bytes), \u{...} escapes up to 2^31-1, plus a small
-- UTF-8 aware word/char processing workload.

local s = "héllo wörld — ✓ 😀"
print("len:", #s, utf8.len(s), utf8.len(s, 3), utf8.len(s, -4))
print("char:", utf8.char(72, 233, 0x4E2D, 0x1F600), utf8.char(), #utf8.char(0x7FFFFFFF))
print("charpattern:", utf8.charpattern == "[\0-\x7F\xC2-\xFD][\x80-\xBF]*")

local cps = {}
for p, c in utf8.codes(s) do cps[#cps + 1] = p .. ":" .. c end
print("codes:", table.concat(cps, " "))
print("codepoint:", utf8.codepoint(s, 1, 3), utf8.codepoint("😀"), utf8.codepoint(s, -4))

-- invalid sequences
local bad = "ab\xffcd\xC3"
print("len invalid:", utf8.len(bad), utf8.len("\xC0\x80"), utf8.len("\xED\xA0\x80"), utf8.len("\xED\xA0\x80", 1, -1, true))
local okc, errc = pcall(function() for _ in utf8.codes(bad) do end end)
print("codes invalid:", okc, (errc:gsub("^.-:%-?%d+: ", "")))
print("codepoint invalid:", pcall(utf8.codepoint, bad, 3))
print("lax:", utf8.len("\u{7FFFFFFF}", 1, -1, true), utf8.len("\u{7FFFFFFF}"), utf8.codepoint("\u{D800}", 1, 1, true))
local laxcps = {}
for _, c in utf8.codes("\u{10FFFF}\u{110000}", true) do laxcps[#laxcps + 1] = string.format("%X", c) end
print("codes lax:", table.concat(laxcps, " "))

-- offset
print("offset:", utf8.offset(s, 1), utf8.offset(s, 3), utf8.offset(s, -1), utf8.offset(s, -3), utf8.offset(s, 0, 3), utf8.offset(s, 100))
print("offset continuation:", pcall(utf8.offset, s, 1, 3))

-- escapes
print("escapes:", "\u{48}\u{49}", #"\u{7FF}", #"\u{800}", #"\u{FFFF}", #"\u{10000}", #"\u{10FFFF}", #"\u{3FFFFFF}", #"\u{4000000}")

-- reverse a UTF-8 string by code points; count letters per script range
local function ureverse(str)
  local t = {}
  for _, c in utf8.codes(str) do table.insert(t, 1, utf8.char(c)) end
  return table.concat(t)
end
print("reverse:", ureverse(s))
local function upper_latin1(str)
  return (str:gsub(utf8.charpattern, function(ch)
    local c = utf8.codepoint(ch)
    if c >= 0xE0 and c <= 0xFE and c ~= 0xF7 then return utf8.char(c - 32) end
    return ch:upper()
  end))
end
print("upper:", upper_latin1("àéîõü straße"))

local chars = {}
for ch in ("añ€😀"):gmatch(utf8.charpattern) do chars[#chars + 1] = #ch end
print("gmatch charpattern:", table.concat(chars, ","))

-- stress: encode/decode many code points and checksum
local h = 0
local buf = {}
for cp = 0, 0x10FFFF, 3 do
  if cp < 0xD800 or cp > 0xDFFF then buf[#buf + 1] = utf8.char(cp) end
  if #buf == 256 then
    local str = table.concat(buf)
    local n = utf8.len(str)
    for _, c in utf8.codes(str) do h = (h * 31 + c) % 1000000007 end
    h = (h + n + utf8.offset(str, n // 2)) % 1000000007
    buf = {}
  end
end
print("stress:", h)
