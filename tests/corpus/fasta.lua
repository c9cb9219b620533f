-- Fasta: generate DNA-like sequences in 60-column lines.  One section
-- repeats a fixed base string (substrings with wrap-around); two more
-- draw letters from weighted alphabets with a private LCG (cumulative
-- probability scan).  Lines are built with string.char/table.concat; the
-- program prints the first lines of each section, letter counts and a
-- line hash instead of the whole text.

local WIDTH = 60
local N = 60000

local char, byte, sub, concat = string.char, string.byte, string.sub, table.concat

-- A made-up base sequence for the repeating section.
local BASE = "GATTACAGGCTTAACCGTAGCATCGATCGGCTAAGCTTCGGATCCAAGTCGACTGCA" ..
             "TTGCAAGCCGGTACGTTAGCCTAGGACTTCAAGGCATGCTAGCCGATTACGATCGTAC"

-- Weighted alphabets: letter, weight (weights sum to 1).
local MIXED = {
  { "a", 0.25 }, { "c", 0.15 }, { "g", 0.15 }, { "t", 0.25 },
  { "B", 0.02 }, { "D", 0.02 }, { "H", 0.02 }, { "K", 0.02 },
  { "M", 0.02 }, { "N", 0.02 }, { "R", 0.02 }, { "S", 0.02 },
  { "V", 0.02 }, { "W", 0.02 }, { "Y", 0.02 },
}
local PLAIN = {
  { "a", 0.31 }, { "c", 0.19 }, { "g", 0.18 }, { "t", 0.32 },
}

-- 31-bit LCG; returns a float in [0, 1).
local seed = 20261123
local function random()
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 2147483648.0
end

-- Running state of one section: letter counts, line count, hash, and
-- the first lines kept for printing.
local function new_section(title)
  return { title = title, counts = {}, lines = 0, hash = 0, first = {} }
end

local function emit(sec, line)
  sec.lines = sec.lines + 1
  if sec.lines <= 3 then sec.first[sec.lines] = line end
  sec.last = line
  -- hash: fold in the line length and a few sampled bytes
  local h = sec.hash * 31 + #line
  for i = 1, #line, 7 do h = h * 7 + byte(line, i) end
  sec.hash = h & 0xffffffff
end

local function repeat_section(sec, n)
  local base = BASE .. BASE  -- so a window of WIDTH never needs two wraps
  local blen = #BASE
  local pos = 1
  local counts = sec.counts
  while n > 0 do
    local len = n < WIDTH and n or WIDTH
    local line = sub(base, pos, pos + len - 1)
    for i = 1, len do
      local c = sub(line, i, i)
      counts[c] = (counts[c] or 0) + 1
    end
    emit(sec, line)
    pos = pos + len
    if pos > blen then pos = pos - blen end
    n = n - len
  end
end

local function random_section(sec, alphabet, n)
  -- cumulative weights; the last one is forced to 1 so rounding cannot
  -- let a draw fall past the end
  local cum, codes = {}, {}
  local total = 0.0
  for i, entry in ipairs(alphabet) do
    total = total + entry[2]
    cum[i] = total
    codes[i] = byte(entry[1])
  end
  cum[#cum] = 1.0
  local k = #cum
  local counts = sec.counts
  local buf = {}
  while n > 0 do
    local len = n < WIDTH and n or WIDTH
    for i = 1, len do
      local r = random()
      local j = 1
      while cum[j] <= r and j < k do j = j + 1 end
      buf[i] = codes[j]
      local c = alphabet[j][1]
      counts[c] = (counts[c] or 0) + 1
    end
    local parts = {}
    for i = 1, len, 20 do
      local e = i + 19
      if e > len then e = len end
      parts[#parts + 1] = char(table.unpack(buf, i, e))
    end
    emit(sec, concat(parts))
    n = n - len
  end
end

local function report(sec)
  print(">" .. sec.title)
  for i = 1, #sec.first do print(sec.first[i]) end
  print("...")
  print(sec.last)
  local keys = {}
  for c in pairs(sec.counts) do keys[#keys + 1] = c end
  table.sort(keys)
  local out = {}
  for _, c in ipairs(keys) do out[#out + 1] = c .. "=" .. sec.counts[c] end
  print(string.format("lines=%d hash=%08x %s", sec.lines, sec.hash, concat(out, " ")))
end

local s1 = new_section("ONE repeated base")
repeat_section(s1, N * 2)
report(s1)

local s2 = new_section("TWO mixed alphabet")
random_section(s2, MIXED, N * 3)
report(s2)

local s3 = new_section("THREE plain alphabet")
random_section(s3, PLAIN, N * 5)
report(s3)
