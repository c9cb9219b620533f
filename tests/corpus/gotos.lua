-- gotos.lua: control flow built from goto.  Loops made only of labels,
-- continue in every loop kind, leaving nested loops, irreducible loops
-- (a cycle entered at two different labels), a goto-driven state
-- machine, backward gotos that close captured locals, and labels at the
-- ends of blocks.

-- a counting loop and a nested loop made of labels only
local function label_loops(n)
  local i, total = 1, 0
  ::outer::
  if i > n then goto done end
  do
    local j = 1
    ::inner::
    if j <= i then
      total = total + (i * j) % 7
      j = j + 1
      goto inner
    end
  end
  i = i + 1
  goto outer
  ::done::
  return total
end
print("labels", label_loops(10), label_loops(300))

-- continue in numeric for, generic for, while and repeat
local function continues(n)
  local a, b, c, d = 0, 0, 0, 0
  for i = 1, n do
    if i % 3 == 0 then goto cont1 end
    a = a + i
    ::cont1::
  end
  local t = {}
  for i = 1, n do t[i] = i * i % 17 end
  for _, v in ipairs(t) do
    if v % 2 == 1 then goto cont2 end
    b = b + v
    ::cont2::
  end
  local k = 0
  while k < n do
    k = k + 1
    if k % 5 ~= 0 then goto cont3 end
    c = c + k
    ::cont3::
  end
  k = 0
  repeat
    k = k + 1
    if k % 4 == 1 then goto cont4 end
    d = d + k
    ::cont4::
  until k >= n
  return a, b, c, d
end
print("continue", continues(100))
print("continue", continues(5000))

-- leaving three nested loops at once
local function find_triple(target)
  local found
  for a = 1, 60 do
    for b = a, 60 do
      for c = b, 60 do
        if a * a + b * b == c * c and a + b + c == target then
          found = a .. "," .. b .. "," .. c
          goto out
        end
      end
    end
  end
  ::out::
  return found or "none"
end
print("triple", find_triple(12), find_triple(30), find_triple(60), find_triple(61))

-- an irreducible loop: the cycle A -> B -> A is entered at A or at B
local function irreducible(n, start_at_b)
  local x, y, steps = 0, 0, 0
  if start_at_b then goto B end
  ::A::
  x = x + 1
  steps = steps + 1
  if x + y >= n then goto stop end
  ::B::
  y = y + 2
  steps = steps + 1
  if x + y < n then goto A end
  ::stop::
  return x, y, steps
end
print("irreducible", irreducible(100, false))
print("irreducible", irreducible(100, true))
print("irreducible", irreducible(1, true))

-- two interleaved cycles with three entries, driven by an LCG
local function tangle(n, seed)
  local p, q, r = 0, 0, 0
  local s = seed
  local function rnd()
    s = (s * 69069 + 1) % 4294967296
    return s >> 24
  end
  local e = rnd() % 3
  if e == 0 then goto P elseif e == 1 then goto Q else goto R end
  ::P::
  p = p + 1
  if p + q + r > n then goto fin end
  if rnd() % 2 == 0 then goto Q end
  goto R
  ::Q::
  q = q + 1
  if p + q + r > n then goto fin end
  if rnd() % 3 == 0 then goto P end
  ::R::
  r = r + 1
  if p + q + r > n then goto fin end
  if rnd() % 2 == 1 then goto P end
  goto Q
  ::fin::
  return p, q, r
end
local tp, tq, tr = 0, 0, 0
for seed = 1, 2000 do
  local p, q, r = tangle(200 + seed % 50, seed)
  tp, tq, tr = tp + p, tq + q, tr + r
end
print("tangle", tp, tq, tr)

-- a state machine: a tokenizer for "name=number;" lists, states as labels
local function parse_assignments(src)
  local pos, len = 1, #src
  local out, name, num = {}, nil, nil
  local c
  ::start::
  if pos > len then goto finish end
  c = src:sub(pos, pos)
  if c == " " then pos = pos + 1; goto start end
  if c:match("%a") then name = ""; goto in_name end
  goto fail
  ::in_name::
  c = src:sub(pos, pos)
  if c ~= "" and c:match("[%w_]") then name = name .. c; pos = pos + 1; goto in_name end
  if c ~= "=" then goto fail end
  pos = pos + 1
  num = 0
  ::in_num::
  c = src:sub(pos, pos)
  if c ~= "" and c:match("%d") then num = num * 10 + (c:byte() - 48); pos = pos + 1; goto in_num end
  if c ~= ";" then goto fail end
  pos = pos + 1
  out[#out + 1] = name .. ":" .. num
  goto start
  ::fail::
  out[#out + 1] = "error at " .. pos
  ::finish::
  return table.concat(out, " ")
end
print("fsm", parse_assignments("a=1; bb=22;c3=333;"))
print("fsm", parse_assignments("x=5;y=q;"))
print("fsm", parse_assignments("  long_name=9876543;"))
local big = {}
for i = 1, 300 do big[#big + 1] = "v" .. i .. "=" .. (i * 37 % 1000) .. ";" end
local parsed = parse_assignments(table.concat(big))
print("fsm", #parsed, parsed:sub(-20))

-- backward goto closes a local captured by a closure: each pass creates
-- a fresh variable
local function closers(n)
  local fs = {}
  local i = 1
  ::again::
  local v = i * 10
  fs[i] = function() v = v + 1; return v end
  i = i + 1
  if i <= n then goto again end
  local sum = 0
  for k = 1, n do sum = sum + fs[k]() + fs[k]() end
  return sum, fs[1](), fs[n]()
end
print("closers", closers(5))
print("closers", closers(200))

-- goto to a label at the end of a block (allowed after locals, since it
-- is the last statement), and a goto out of a nested function-less block
local function tail_labels(t)
  local n = 0
  for i = 1, #t do
    do
      local x = t[i]
      if x < 0 then goto skip end
      n = n + x
    end
    ::skip::
  end
  do
    local y = n
    if y > 100 then goto big end
    n = -n
    ::big::
  end
  return n
end
print("tail", tail_labels({1, 2, -3, 4}), tail_labels({50, 60, -1}))

-- bubble sort and binary search written with gotos only
local function goto_sort(a)
  local n = #a
  local swapped, i
  ::pass::
  swapped = false
  i = 2
  ::step::
  if i > n then goto endpass end
  if a[i - 1] > a[i] then
    a[i - 1], a[i] = a[i], a[i - 1]
    swapped = true
  end
  i = i + 1
  goto step
  ::endpass::
  n = n - 1
  if swapped then goto pass end
  return a
end
local function goto_search(a, x)
  local lo, hi = 1, #a
  ::loop::
  if lo > hi then return nil end
  local mid = (lo + hi) // 2
  if a[mid] == x then return mid end
  if a[mid] < x then lo = mid + 1 else hi = mid - 1 end
  goto loop
end
local arr, s = {}, 7
for i = 1, 900 do s = (s * 1103515245 + 12345) % 2147483648; arr[i] = s % 10007 end
goto_sort(arr)
local ok = true
for i = 2, #arr do if arr[i - 1] > arr[i] then ok = false end end
local hits = 0
for x = 0, 10006, 3 do if goto_search(arr, x) then hits = hits + 1 end end
print("gotosort", ok, arr[1], arr[200], arr[900], hits)
