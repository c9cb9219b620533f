-- String library: sub/len/upper/lower/rep/reverse, byte/char, format
-- (all common conversions incl. %q), find (plain, anchored, captures,
-- position captures, init), match, gmatch (captures, init), gsub with
-- string/function/table replacements and %b, %f, character classes,
-- string.pack/unpack/packsize, and method-call syntax on literals.

local s = "Hello, Lua World"
print("basic:", #s, s:len(), s:upper(), s:lower(), s:reverse())
print("sub:", s:sub(1, 5), s:sub(-5), s:sub(-5, -3), s:sub(8, 100), s:sub(0), "[" .. s:sub(5, 2) .. "]", s:sub(-100, 2))
print("rep:", ("ab"):rep(3), ("ab"):rep(3, "-"), ("x"):rep(0), ("x"):rep(-1), #("abc"):rep(1000))
print("byte:", s:byte(1), s:byte(-1), s:byte(1, 3), s:byte(100))
print("char:", string.char(72, 105, 33), #string.char(), string.char(0, 255):byte(1, -1))

-- format
print(string.format("%d|%5d|%-5d|%05d|%+d|%x|%X|%#x|%o|%c", 42, 42, 42, 42, 42, 255, 255, 255, 8, 65))
print(string.format("%f|%.2f|%10.3f|%-10.1f|%e|%.3E|%g|%g|%g", 3.14159, 3.14159, 3.14159, 3.14159, 1234.5, 1234.5, 0.0001, 1e-5, 100000000000000))
print(string.format("%s|%10s|%-10s|%.3s|%%|%s|%s|%s", "str", "right", "left", "truncate", nil, true, 12.0))
print(string.format("%q", "line1\nline2\t\"quoted\"\\ \0 \1 \200 end"))
print(string.format("%q|%q|%q", 42, math.mininteger, "\r\n"))
print(string.format("%s", setmetatable({}, { __tostring = function() return "custom tostring" end })))
print(string.format("%i %u", 7, 8) == "7 8" or "n/a", string.format("%5.1s|", "abc"))

-- find
print("find:", s:find("Lua"), s:find("l"), s:find("l", 5), s:find("xyz"), s:find(""), s:find("", 100))
print("find plain:", ("a.b.c"):find(".", 1, true), ("a.b.c"):find("%."), ("a+b"):find("+", 1, true))
print("find anchored:", s:find("^Hello"), s:find("^Lua"), s:find("World$"), s:find("(%a+), (%a+)"))
print("find init:", s:find("o", -5), s:find("o", 6), ("aaa"):find("a", -10))
print("position captures:", ("hello"):find("()ll()"), ("abc"):match("()b()"))

-- match / gmatch
print("match:", s:match("%a+"), s:match("(%a+) (%a+)$"), ("key = value"):match("^(%w+)%s*=%s*(%w+)$"))
print("match num:", ("price: 42.50 EUR"):match("%d+%.%d+"), ("x=-12"):match("[+-]?%d+"), ("  trim  "):match("^%s*(.-)%s*$") .. "|")
print("match classes:", ("a1_B2"):gsub("%w", "w"), ("a b\tc\n"):gsub("%s", "_"), ("Hi!?"):gsub("%p", "P"), ("abc123"):gsub("%D", ""))
local words = {}
for w in ("the quick brown fox"):gmatch("%a+") do words[#words + 1] = w end
print("gmatch:", table.concat(words, "|"))
local kv = {}
for k, v in ("a=1, b=22, ccc=333"):gmatch("(%w+)=(%w+)") do kv[#kv + 1] = k .. ":" .. v end
print("gmatch pairs:", table.concat(kv, " "))
local pos = {}
for p in ("banana"):gmatch("()an") do pos[#pos + 1] = p end
print("gmatch positions:", table.concat(pos, ","))
local anch = {}
for w in ("one two"):gmatch("%a+", 4) do anch[#anch + 1] = w end
print("gmatch init:", table.concat(anch, ","))

-- gsub
print("gsub str:", ("hello world"):gsub("o", "0"), ("hello world"):gsub("o", "0", 1), ("hello"):gsub("", "-"))
print("gsub captures:", ("hello world"):gsub("(%w+) (%w+)", "%2 %1"), ("abc"):gsub("%w", "%0%0"), ("x"):gsub("x", "%%"))
print("gsub func:", ("1 2 3"):gsub("%d", function(d) return d * 10 end), ("a b"):gsub("%a", function() end))
print("gsub table:", ("$name is $age"):gsub("%$(%w+)", { name = "Lua", age = 31 }), ("$x"):gsub("%$(%w+)", {}))
print("gsub balanced:", ("f(a(b)c) g(d)"):gsub("%b()", "[]"), ("THE (quick) fox"):gsub("%f[%a]%a+", function(w) return w:lower() end))
print("gsub frontier:", ("THE (quick) fox"):gsub("%f[%w]%w+", "W"), ("aaa bbb"):gsub("%f[%l]", "^"))
print("gsub anchored:", ("aaa"):gsub("^a", "b"), ("hello"):gsub(".", { h = "H", o = false }))
print("gsub sets:", ("a-b_c.d"):gsub("[%-_.]", "+"), ("Hello"):gsub("[^aeiou]", ""), ("x]y"):gsub("[]]", "!"))
print("gsub quantifiers:", ("aaab"):match("a-b"), ("aaab"):match("a*"), ("aaab"):match("a+?"), ("<<a>>"):match("<(.-)>"), ("<<a>>"):match("<(.*)>"))
for _, bad in ipairs({ { string.find, "a", "%" }, { string.find, "a", "(a" }, { string.gsub, "a", "(a)", "%2" },
                      { string.match, "a", "[a" }, { string.gsub, "abc", "%f", "" }, { string.rep, "x", 1e10 } }) do
  local ok, err = pcall(table.unpack(bad))
  print("pattern error:", ok, err)
end

-- pack / unpack
local packed = string.pack("<i4 i8 d s1 z B h", 100000, -5, 2.5, "str", "zero", 255, -2)
print("pack:", #packed, string.packsize("<i4 i8 d"), string.unpack("<i4 i8 d s1 z B h", packed))
print("pack be:", string.pack(">I2", 0x1234):byte(1, -1), string.pack("<I2", 0x1234):byte(1, -1))
print("pack align:", string.packsize("!8 i1 i8"), string.packsize("i1 i8"), #string.pack("!4 b i4", 1, 2))
print("unpack pos:", string.unpack("B", "\5\6\7", 2), string.unpack("i3", string.pack("i3", -100)))
print("pack overflow:", pcall(string.pack, "i1", 200))
print("pack floats:", string.unpack("f", string.pack("f", 0.5)), string.unpack("n", string.pack("n", 1 / 3)) == 1 / 3)

-- comparison and concatenation
print("compare:", "a" < "b", "abc" < "abd", "Z" < "a", "" < "a", "a\0b" < "a\0c", "10" < "9")
local parts = {}
for i = 1, 10 do parts[#parts + 1] = i end
print("concat:", table.concat(parts), 1 .. 2, "x" .. 1.5 .. tostring(true), 2 .. "" == "2")

-- stress: string building, hashing and pattern work
local h = 0
for i = 1, 18000 do
  local line = string.format("%05d:%s:%x", i, ("ab"):rep(i % 7), i * 31)
  local a, b, c = line:match("^(%d+):(%a*):(%x+)$")
  h = (h * 31 + tonumber(a) + #b + tonumber(c, 16)) % 1000000007
  line = line:gsub("%a", string.upper):gsub("%d", function(d) return string.char(65 + d) end)
  for j = 1, #line, 3 do h = (h + line:byte(j) * j) % 1000000007 end
  local up = line:upper():lower():reverse()
  if up:find("ab", 1, true) then h = h + 1 end
end
print("stress:", h)
