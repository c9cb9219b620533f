-- floatloops.lua: numeric for loops with float control values.
-- Fractional and negative steps, float limits with integer starts (the
-- loop becomes a float loop), accumulation error versus computed values,
-- loops near 2^53 where adding the step stops changing the value, huge
-- and tiny steps, loops whose count is fixed before the body runs, NaN
-- and infinite limits, and the integer/float type of the control
-- variable.  Floats are printed with %.14g or rounded first.

local function g(x) return string.format("%.14g", x) end

-- type of the control variable
local types = {}
for i = 1, 2 do types[#types + 1] = math.type(i) end
for i = 1.0, 2 do types[#types + 1] = math.type(i) end
for i = 1, 2.0 do types[#types + 1] = math.type(i) end
for i = 1, 2, 1.0 do types[#types + 1] = math.type(i) end
print("types", table.concat(types, " "))

-- fractional steps, counted and summed
local function run(a, b, c)
  local n, s, last = 0, 0.0, nil
  for x = a, b, c do n = n + 1; s = s + x; last = x end
  return n, g(s), last and g(last) or "none"
end
print("0.1", run(0, 1, 0.1))
print("0.25", run(0, 1, 0.25))
print("-0.5", run(3, -3, -0.5))
print("1/3", run(0, 2, 1 / 3))
print("0.3", run(-1.5, 1.5, 0.3))
print("empty", run(1, 0, 0.5))
print("empty", run(0, 1, -0.5))
print("single", run(2.5, 2.5, 1))
print("mixed", run(1, 3.5, 1))

-- float accumulation versus direct computation
local acc, drift = 0.0, 0.0
local steps = 0
for x = 0, 100, 0.01 do
  steps = steps + 1
  acc = acc + 0.01
  local d = math.abs(acc - x)
  if d > drift then drift = d end
end
print("drift", steps, g(drift), g(acc))

-- near 2^53: integers stay exact, floats round
local big = 2.0 ^ 53
-- the float loop reaches 2^53 and then x + 1 == x: it would never end
local cnt = 0
for x = big - 4, big + 4 do cnt = cnt + 1; if cnt == 30 then break end end
local icnt = 0
for x = (1 << 53) - 4, (1 << 53) + 4 do icnt = icnt + 1 end
print("2^53", cnt, icnt, big + 1 == big, (1 << 53) + 1 == (1 << 53))
-- a step of 2 still moves at 2^53
local moved = 0
for x = big, big + 10, 2 do moved = moved + 1 end
print("moved", moved)

-- huge and tiny steps
print("huge", run(0, 1e308, 1e307))
print("tiny", run(1, 1 + 1e-12, 1e-13))
local brk = 0
for x = 1, math.huge do brk = brk + 1; if brk >= 50 then break end end
local brk2 = 0
for x = 0.5, -math.huge, -0.5 do brk2 = brk2 + 1; if x < -10 then break end end
print("infinite", brk, brk2)
local nan = 0 / 0
local nn = 0
for x = 1, nan do nn = nn + 1 end
for x = nan, 10 do nn = nn + 1 end
print("nan", nn)

-- the limit and step are evaluated once; changing them in the body has no
-- effect, and assigning to the control variable does not affect the loop
local lim, st = 2.0, 0.5
local visits = {}
for x = 0, lim, st do
  visits[#visits + 1] = g(x)
  lim, st = 100, 0.001
  x = x + 10
end
print("once", table.concat(visits, " "))

-- float loops driving numeric work: trapezoid integration and a
-- polynomial table
local function trapz(f, a, b, h)
  local s = (f(a) + f(b)) / 2
  for x = a + h, b - h / 2, h do s = s + f(x) end
  return s * h
end
local function r9(x) return math.floor(x * 1e9 + 0.5) end
print("trapz", r9(trapz(function(x) return x * x end, 0, 3, 0.001)),
      r9(trapz(function(x) return 4 / (1 + x * x) end, 0, 1, 0.0005)))
local ptab = {}
for x = -2, 2, 0.5 do
  ptab[#ptab + 1] = g(((x - 1) * x + 0.5) * x - 2)
end
print("poly", table.concat(ptab, " "))

-- nested float loops: a coarse grid histogram of a function
local hist = {}
for i = 0, 9 do hist[i] = 0 end
for y = -1, 1, 0.02 do
  for x = -1, 1, 0.02 do
    local v = math.sin(x * 3) * math.cos(y * 2)
    local bucket = math.floor((v + 1) * 5)
    if bucket > 9 then bucket = 9 end
    hist[bucket] = hist[bucket] + 1
  end
end
local hs = {}
for i = 0, 9 do hs[#hs + 1] = hist[i] end
print("hist", table.concat(hs, " "))

-- negative float steps with integer-valued floats
local down = {}
for x = 10.0, 1, -2.25 do down[#down + 1] = g(x) end
print("down", table.concat(down, " "))

-- count of iterations compared with floor((b-a)/c)+1 over many loops
local agree, total = 0, 0
for i = 1, 300 do
  local a = (i % 17) / 4
  local b = a + (i % 23) / 2
  local c = 0.125 * (1 + i % 5)
  local n = 0
  for _ = a, b, c do n = n + 1 end
  total = total + n
  if n == math.floor((b - a) / c) + 1 then agree = agree + 1 end
end
print("counts", agree, total)

-- an integer loop with float-valued step converted, and integer loops at
-- the extremes of the integer range (no overflow in the count)
local e1 = 0
for i = math.maxinteger - 3, math.maxinteger do e1 = e1 + 1 end
local e2 = 0
for i = math.mininteger, math.mininteger + 10, 5 do e2 = e2 + 1 end
local e3 = 0
for i = math.maxinteger, math.maxinteger - 20, -7 do e3 = e3 + 1 end
print("extremes", e1, e2, e3)

-- workload: a damped oscillator integrated with a float time loop
local pos, vel = 1.0, 0.0
local k, damp, dt = 4.0, 0.1, 0.0002
local crossings, prev = 0, pos
for t = 0, 60, dt do
  local a = -k * pos - damp * vel
  vel = vel + a * dt
  pos = pos + vel * dt
  if (pos > 0) ~= (prev > 0) then crossings = crossings + 1 end
  prev = pos
end
print("oscillator", crossings, r9(pos) // 1000, r9(vel) // 1000)
