-- All loop forms: numeric for (int/float, positive/negative steps,
-- empty ranges, overflow-safe bounds near maxinteger, float accumulation),
-- generic for (ipairs, pairs on arrays, stateless and stateful custom
-- iterators, closing value in 4th slot), while, repeat-until with body
-- locals, goto-based loops and continue, nested breaks, labels at block end.

local function collect(...) return table.concat({ ... }, " ") end

local t = {}
for i = 1, 5 do t[#t + 1] = i end
for i = 10, 1, -3 do t[#t + 1] = i end
for i = 5, 1 do t[#t + 1] = "never" end
for i = 1, 0, -1 do t[#t + 1] = i end
print("int for:", table.concat(t, " "))

t = {}
for x = 0.0, 1.0, 0.25 do t[#t + 1] = x end
for x = 1, 0, -0.5 do t[#t + 1] = x end
for x = 1, 2.5 do t[#t + 1] = x end
print("float for:", table.concat(t, " "))

-- loops near the integer limits must not overflow/wrap
local n = 0
for i = math.maxinteger - 3, math.maxinteger do n = n + 1 end
for i = math.mininteger + 2, math.mininteger, -1 do n = n + 1 end
for i = math.maxinteger - 10, math.maxinteger, 4 do n = n + 1 end
print("limit loops:", n)
local c2 = 0
for i = 1, math.huge do c2 = c2 + 1; if c2 == 7 then break end end
for i = 3, -math.huge, -1 do c2 = c2 + 1; if i < -2 then break end end
print("infinite bounds w/ break:", c2)

-- step 0 is an error
local ok, err = pcall(function() for i = 1, 10, 0 do end end)
print("step zero:", ok, (err:gsub("^.-:%-?%d+: ", "")))

-- ipairs stops at first nil; pairs on a pure array goes in order
t = {}
for i, v in ipairs({ 10, 20, nil, 40 }) do t[#t + 1] = i .. "=" .. v end
print("ipairs:", table.concat(t, " "))
t = {}
local arr = { "a", "b", "c", "d" }
for k, v in pairs(arr) do t[#t + 1] = k .. v end
print("pairs array:", table.concat(t, " "))

-- stateless iterator
local function evens(limit, cur)
  cur = cur + 2
  if cur <= limit then return cur end
end
t = {}
for v in evens, 11, 0 do t[#t + 1] = v end
print("stateless:", table.concat(t, " "))

-- stateful closure iterator with two values
local function range(a, b, step)
  local cur = a - step
  return function()
    cur = cur + step
    if cur <= b then return cur, cur * cur end
  end
end
t = {}
for i, sq in range(1, 9, 2) do t[#t + 1] = i .. ":" .. sq end
print("closure iter:", table.concat(t, " "))

-- generic for with a to-be-closed 4th value
local closed = 0
local closer = setmetatable({}, { __close = function() closed = closed + 1 end })
for i in function(_, c) if c < 3 then return c + 1 end end, nil, 0, closer do end
for i in function(_, c) if c < 3 then return c + 1 end end, nil, 0, closer do
  if i == 2 then break end
end
print("closed iterators:", closed)

-- string iterators
t = {}
for w in ("one two  three"):gmatch("%a+") do t[#t + 1] = w:upper() end
print("gmatch:", table.concat(t, ","))

-- while and repeat
local i, s = 0, 0
while i < 10 do i = i + 1; if i % 2 == 0 then s = s + i end end
print("while:", i, s)
i = 0
repeat local done = i >= 5; i = i + 1 until done
print("repeat:", i)

-- goto loops and continue
i = 0
local acc = {}
::again::
i = i + 1
if i % 3 == 0 then goto again end -- continue
acc[#acc + 1] = i
if i < 10 then goto again end
print("goto loop:", table.concat(acc, " "))

acc = {}
for k = 1, 10 do
  if k % 2 == 1 then goto continue end
  acc[#acc + 1] = k
  ::continue::
end
print("continue:", table.concat(acc, " "))

-- nested loops with break at different depths
acc = {}
for a = 1, 4 do
  for b = 1, 4 do
    if b > a then break end
    local c = 0
    while true do
      c = c + 1
      if c > b then break end
      if (a + b + c) % 3 == 0 then goto skip end
      acc[#acc + 1] = a .. b .. c
      ::skip::
    end
  end
end
print("nested:", table.concat(acc, " "))

-- breaking out of several levels with goto
local found
for a = 1, 20 do
  for b = a, 20 do
    for c = b, 30 do
      if a * a + b * b == c * c and a > 6 then found = collect(a, b, c); goto out end
    end
  end
end
::out::
print("pythagorean:", found)

-- goto backward inside nested block, with a label at end of block
do
  local k = 0
  local parts = {}
  while true do
    k = k + 1
    do
      if k > 5 then goto done end
      parts[#parts + 1] = k
      goto next
    end
    ::next::
  end
  ::done::
  print("label at end:", table.concat(parts, ","))
end

-- modifying the loop variable copy does not affect iteration
acc = {}
for k = 1, 5 do
  local kk = k
  k = k * 100
  acc[#acc + 1] = kk .. "/" .. k
end
print("loop var copy:", table.concat(acc, " "))

-- float loop accumulation error is deterministic
local cnt, fsum = 0, 0
for x = 0, 1, 0.1 do cnt = cnt + 1; fsum = fsum + x end
print("float steps:", cnt, fsum)

-- stress: lots of loop iterations of all kinds
local total = 0
for round = 1, 10000 do
  for a = 1, 100 do total = total + a end
  for a = 100, 1, -7 do total = total - a end
  local w = 0
  while w < 100 do w = w + 3; total = total + (w & 7) end
  repeat w = w - 5 until w < 0
  for _, v in ipairs(arr) do total = total + #v end
  local g = 0
  ::lp::
  g = g + 1
  if g < 200 then total = total + (g % 5); goto lp end
  for x = 0.5, 50, 0.5 do total = total + (x // 1) end
end
print("stress:", total)
