-- JSON encoder + recursive-descent decoder round trip.
-- Objects are encoded with sorted keys so output is deterministic.
-- Covers string escapes (incl. \uXXXX and surrogate pairs), integers vs
-- floats, nesting, whitespace handling, and error reporting on bad input.

local byte, char, sub, fmt = string.byte, string.char, string.sub, string.format
local concat = table.concat

local NULL = setmetatable({}, { __tostring = function() return "null" end })
local ARRAY_MT = {} -- marks tables that must encode as arrays

local function array(t) return setmetatable(t, ARRAY_MT) end

-- encoder ----------------------------------------------------------------
local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
                  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function esc_char(c)
  return escapes[c] or fmt("\\u%04x", byte(c))
end

local encode_value

local function encode_string(s, out)
  out[#out + 1] = '"' .. s:gsub('[%c"\\]', esc_char) .. '"'
end

local function encode_number(x, out)
  if math.type(x) == "integer" then
    out[#out + 1] = fmt("%d", x)
  else
    local s = fmt("%.17g", x)
    if not s:find("[%.eE]") then s = s .. ".0" end
    out[#out + 1] = s
  end
end

function encode_value(v, out, depth)
  local t = type(v)
  if v == NULL then out[#out + 1] = "null"
  elseif t == "boolean" then out[#out + 1] = v and "true" or "false"
  elseif t == "number" then encode_number(v, out)
  elseif t == "string" then encode_string(v, out)
  elseif t == "table" then
    if depth > 64 then error("nesting too deep") end
    if getmetatable(v) == ARRAY_MT then
      out[#out + 1] = "["
      for i = 1, #v do
        if i > 1 then out[#out + 1] = "," end
        encode_value(v[i], out, depth + 1)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do
        if type(k) ~= "string" then error("object key must be a string") end
        keys[#keys + 1] = k
      end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        encode_string(k, out)
        out[#out + 1] = ":"
        encode_value(v[k], out, depth + 1)
      end
      out[#out + 1] = "}"
    end
  else
    error("cannot encode " .. t)
  end
end

local function encode(v)
  local out = {}
  encode_value(v, out, 0)
  return concat(out)
end

-- decoder ----------------------------------------------------------------
local decode_value

local function skip_ws(s, i)
  local _, e = s:find("^[ \t\r\n]*", i)
  return e + 1
end

local function decode_error(s, i, what)
  error(fmt("json error at %d: %s", i, what), 0)
end

local function utf8_encode(cp)
  return utf8.char(cp)
end

local function decode_string(s, i)
  -- s:sub(i,i) == '"'
  local parts = {}
  local j = i + 1
  while true do
    local c = byte(s, j)
    if c == nil then decode_error(s, j, "unterminated string") end
    if c == 34 then break end -- "
    if c == 92 then -- backslash
      local e = sub(s, j + 1, j + 1)
      if e == "u" then
        local hex = sub(s, j + 2, j + 5)
        if not hex:find("^%x%x%x%x$") then decode_error(s, j, "bad unicode escape") end
        local cp = tonumber(hex, 16)
        j = j + 6
        if cp >= 0xD800 and cp <= 0xDBFF and sub(s, j, j + 1) == "\\u" then
          local lo = tonumber(sub(s, j + 2, j + 5), 16)
          if lo and lo >= 0xDC00 and lo <= 0xDFFF then
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
            j = j + 6
          end
        end
        parts[#parts + 1] = utf8_encode(cp)
      else
        local m = ({ b = "\b", f = "\f", n = "\n", r = "\r", t = "\t",
                     ['"'] = '"', ["\\"] = "\\", ["/"] = "/" })[e]
        if not m then decode_error(s, j, "bad escape") end
        parts[#parts + 1] = m
        j = j + 2
      end
    else
      local k = s:find('["\\]', j)
      if not k then decode_error(s, j, "unterminated string") end
      parts[#parts + 1] = sub(s, j, k - 1)
      j = k
    end
  end
  return concat(parts), j + 1
end

local function decode_number(s, i)
  local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  if not num or num == "" or num == "-" then decode_error(s, i, "bad number") end
  local v = tonumber(num)
  if v == nil then decode_error(s, i, "bad number " .. num) end
  return v, i + #num
end

local literals = { t = { "true", true }, f = { "false", false }, n = { "null", NULL } }

function decode_value(s, i)
  i = skip_ws(s, i)
  local c = sub(s, i, i)
  if c == "{" then
    local obj = {}
    i = skip_ws(s, i + 1)
    if sub(s, i, i) == "}" then return obj, i + 1 end
    while true do
      i = skip_ws(s, i)
      if sub(s, i, i) ~= '"' then decode_error(s, i, "expected key") end
      local k
      k, i = decode_string(s, i)
      i = skip_ws(s, i)
      if sub(s, i, i) ~= ":" then decode_error(s, i, "expected ':'") end
      obj[k], i = decode_value(s, i + 1)
      i = skip_ws(s, i)
      local d = sub(s, i, i)
      i = i + 1
      if d == "}" then return obj, i end
      if d ~= "," then decode_error(s, i - 1, "expected ',' or '}'") end
    end
  elseif c == "[" then
    local arr = array({})
    i = skip_ws(s, i + 1)
    if sub(s, i, i) == "]" then return arr, i + 1 end
    while true do
      arr[#arr + 1], i = decode_value(s, i)
      i = skip_ws(s, i)
      local d = sub(s, i, i)
      i = i + 1
      if d == "]" then return arr, i end
      if d ~= "," then decode_error(s, i - 1, "expected ',' or ']'") end
    end
  elseif c == '"' then
    return decode_string(s, i)
  elseif c == "-" or c:match("%d") then
    return decode_number(s, i)
  else
    local lit = literals[c]
    if lit and sub(s, i, i + #lit[1] - 1) == lit[1] then
      return lit[2], i + #lit[1]
    end
    decode_error(s, i, "unexpected character '" .. c .. "'")
  end
end

local function decode(s)
  local v, i = decode_value(s, 1)
  i = skip_ws(s, i)
  if i <= #s then decode_error(s, i, "trailing garbage") end
  return v
end

-- test data --------------------------------------------------------------
local seed = 12345
local function rnd(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local words = { "alpha", "beta", "gamma", "delta", "quote\"d", "back\\slash",
                "tab\there", "new\nline", "caf\u{e9}", "\u{1F600}smile", "ctl\1x", "" }

local function make(depth)
  local r = rnd(10)
  if depth <= 0 or r < 3 then
    local k = rnd(7)
    if k == 0 then return rnd(100000) - 50000
    elseif k == 1 then return (rnd(100000) - 50000) / 64
    elseif k == 2 then return words[rnd(#words) + 1]
    elseif k == 3 then return rnd(2) == 0
    elseif k == 4 then return NULL
    elseif k == 5 then return 1e300 * (rnd(3) - 1) + 0.5
    else return words[rnd(#words) + 1] .. rnd(1000) end
  elseif r < 6 then
    local a = array({})
    for i = 1, rnd(6) do a[i] = make(depth - 1) end
    return a
  else
    local o = {}
    for _ = 1, rnd(6) do o[words[rnd(#words) + 1] .. rnd(50)] = make(depth - 1) end
    return o
  end
end

local function deep_equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then
    return a == b and math.type(a) == math.type(b)
  end
  if (getmetatable(a) == ARRAY_MT) ~= (getmetatable(b) == ARRAY_MT) then return false end
  if a == NULL or b == NULL then return a == b end
  local keys = {}
  for k in pairs(a) do keys[#keys + 1] = k end
  for k in pairs(b) do if a[k] == nil then return false end end
  for _, k in ipairs(keys) do
    if not deep_equal(a[k], b[k]) then return false end
  end
  return true
end

local function hash(s)
  local h = 5381
  for i = 1, #s do h = (h * 33 + byte(s, i)) & 0xffffffff end
  return h
end

local total_len, ok_count = 0, 0
for round = 1, 400 do
  local doc = make(6)
  local text = encode(doc)
  local back = decode(text)
  local text2 = encode(back)
  assert(text == text2, "re-encode mismatch")
  if deep_equal(doc, back) then ok_count = ok_count + 1 end
  total_len = total_len + #text
  if round <= 3 then print(#text, fmt("%08x", hash(text))) end
end
print("roundtrips equal:", ok_count, "total length:", total_len)

-- a fixed, hand-written document with whitespace and escapes
local fixed = [[
  { "name" : "lraf", "version": [5, 4, 4], "pi": 3.25, "neg": -12,
    "exp": 1.5e3, "esc": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "empty": {}, "none": [],
    "flags": [true, false, null] }
]]
local v = decode(fixed)
print(encode(v))
print(math.type(v.version[1]), math.type(v.pi), math.type(v.exp), v.exp)

-- malformed inputs: messages carry no file positions (error level 0)
for _, bad in ipairs({ "[1,2", "{\"a\" 1}", "tru", "\"abc", "[1,]x", "01x", "{} {}" }) do
  local ok, err = pcall(decode, bad)
  print(ok, err)
end
