-- Deep nesting: functions nested 12 levels with upvalues from every level,
-- deeply nested blocks / if-chains / loops, long and/or chains with
-- constant folding opportunities, deep parenthesised expressions (register
-- pressure), a function with close to the maximum number of locals and one
-- with many upvalues, and deeply nested table constructors.

local function nest(a)
  local b = a + 1
  return function(c)
    local d = c * 2
    return function(e)
      local f = e - b
      return function(g)
        local h = g + d
        return function(i)
          local j = i * f
          return function(k)
            local l = k + h
            return function(m)
              local n = m - j
              return function(o)
                local p = o + l + a
                return function(q)
                  local r = q * 2 + n
                  return function(s)
                    local u = s + p - r
                    return function(v)
                      b = b + 1 -- modifies an upvalue 11 levels up
                      return a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + s + u + v
                    end
                  end
                end
              end
            end
          end
        end
      end
    end
  end
end
local deep = nest(1)(2)(3)(4)(5)(6)(7)(8)(9)(10)
print("12-level closure:", deep(11), deep(11), deep(0))

-- deeply nested control flow
local function classify(x)
  if x > 0 then
    if x > 10 then
      if x > 100 then
        if x > 1000 then
          if x % 2 == 0 then return "huge-even" else return "huge-odd" end
        elseif x % 3 == 0 then return "big-3"
        else
          for i = 2, 9 do
            if x % i == 0 then
              while true do
                repeat
                  if i > 5 then return "big-div" .. i end
                until true
                break
              end
              return "big-small-div" .. i
            end
          end
          return "big-prime-ish"
        end
      else return "medium" end
    else return "small" end
  elseif x == 0 then return "zero"
  else return "negative" end
end
local cls = {}
for _, v in ipairs({ -5, 0, 3, 50, 101, 111, 121, 143, 700, 1001, 1002 }) do cls[#cls + 1] = classify(v) end
print("classify:", table.concat(cls, " "))

-- long boolean chains
local function chain(a, b, c, d)
  return (a and b or c and d or not a and not b) and ((a or b) and (c or d) or (a == b and c ~= d)) or false
end
local bits = {}
for m = 0, 15 do
  bits[#bits + 1] = chain(m & 1 ~= 0, m & 2 ~= 0, m & 4 ~= 0, m & 8 ~= 0) and "1" or "0"
end
print("boolean chain:", table.concat(bits))
local folded = (2 ^ 10 + 3 * 4 - 6 // 4 + 7 % 3 - (1 << 4) + (0xFF & 0x0F) + (~0 ~ -1)) * (1 < 2 and 1 or 0)
print("constant folding:", folded, math.type(folded), "a" .. "b" .. "c", -(-(-3)), not not nil)

-- deep parenthesised expression (many temporaries)
local x1, x2, x3, x4, x5 = 1, 2, 3, 4, 5
local e = ((((((x1 + x2) * (x3 - x4)) + ((x5 * x1) - (x2 + x3))) * (((x4 - x5) * (x1 + x2)) + ((x3 * x4) - (x5 + x1)))) +
          ((((x2 * x3) + (x4 * x5)) - ((x1 * x2) + (x3 * x4))) * (((x5 - x1) + (x2 - x3)) * ((x4 + x5) - (x1 + x2))))) *
          (((((x1 * x1) + (x2 * x2)) + ((x3 * x3) + (x4 * x4))) - (((x5 * x5) - (x1 * x2)) + ((x3 * x4) - (x5 * x1)))) + 1))
print("deep expression:", e)
print("call args nesting:", math.max(math.min(x1, math.max(x2, math.min(x3, math.max(x4, x5)))), math.abs(-math.floor(-(x5 / x2)))))

-- nested tables
local tree = { v = 1, k = { v = 2, k = { v = 3, k = { v = 4, k = { v = 5, k = { v = 6, k = { v = 7, k = { v = 8, k = {} } } } } } } } }
local depth, sum = 0, 0
local node = tree
while node.v do depth = depth + 1; sum = sum + node.v; node = node.k end
print("nested tables:", depth, sum, #{ { { { { { { {} } } } } } } }, tree.k.k.k.k.k.k.k.v)

-- many locals in one function (close to the limit of 200)
local function many_locals(seed)
  local a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 = seed, seed + 1, seed + 2, seed + 3, seed + 4, seed + 5, seed + 6, seed + 7, seed + 8, seed + 9
  local b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = a0 * 2, a1 * 2, a2 * 2, a3 * 2, a4 * 2, a5 * 2, a6 * 2, a7 * 2, a8 * 2, a9 * 2
  local c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = b0 + a9, b1 + a8, b2 + a7, b3 + a6, b4 + a5, b5 + a4, b6 + a3, b7 + a2, b8 + a1, b9 + a0
  local d0, d1, d2, d3, d4, d5, d6, d7, d8, d9 = c0 - 1, c1 - 1, c2 - 1, c3 - 1, c4 - 1, c5 - 1, c6 - 1, c7 - 1, c8 - 1, c9 - 1
  local e0, e1, e2, e3, e4, e5, e6, e7, e8, e9 = d0 % 7, d1 % 7, d2 % 7, d3 % 7, d4 % 7, d5 % 7, d6 % 7, d7 % 7, d8 % 7, d9 % 7
  local f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 = e0 * e1, e1 * e2, e2 * e3, e3 * e4, e4 * e5, e5 * e6, e6 * e7, e7 * e8, e8 * e9, e9 * e0
  local g0, g1, g2, g3, g4, g5, g6, g7, g8, g9 = f0 + f9, f1 + f8, f2 + f7, f3 + f6, f4 + f5, f5 + f4, f6 + f3, f7 + f2, f8 + f1, f9 + f0
  local h0, h1, h2, h3, h4, h5, h6, h7, h8, h9 = g0 ~ a0, g1 ~ a1, g2 ~ a2, g3 ~ a3, g4 ~ a4, g5 ~ a5, g6 ~ a6, g7 ~ a7, g8 ~ a8, g9 ~ a9
  local i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 = h0 | 1, h1 | 2, h2 | 4, h3 | 8, h4 | 16, h5 | 32, h6 | 64, h7 | 128, h8 | 256, h9 | 512
  local j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 = i0 >> 1, i1 >> 1, i2 >> 1, i3 >> 1, i4 >> 1, i5 >> 1, i6 >> 1, i7 >> 1, i8 >> 1, i9 >> 1
  local k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 = j0 + b0, j1 + b1, j2 + b2, j3 + b3, j4 + b4, j5 + b5, j6 + b6, j7 + b7, j8 + b8, j9 + b9
  local l0, l1, l2, l3, l4, l5, l6, l7, l8, l9 = k0 * c0, k1 * c1, k2 * c2, k3 * c3, k4 * c4, k5 * c5, k6 * c6, k7 * c7, k8 * c8, k9 * c9
  local m0, m1, m2, m3, m4, m5, m6, m7, m8, m9 = l0 // 3, l1 // 3, l2 // 3, l3 // 3, l4 // 3, l5 // 3, l6 // 3, l7 // 3, l8 // 3, l9 // 3
  local n0, n1, n2, n3, n4, n5, n6, n7, n8, n9 = m0 - d0, m1 - d1, m2 - d2, m3 - d3, m4 - d4, m5 - d5, m6 - d6, m7 - d7, m8 - d8, m9 - d9
  local o0, o1, o2, o3, o4, o5, o6, o7, o8, o9 = n0 + e9, n1 + e8, n2 + e7, n3 + e6, n4 + e5, n5 + e4, n6 + e3, n7 + e2, n8 + e1, n9 + e0
  local p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 = o0 & 0xFFF, o1 & 0xFFF, o2 & 0xFFF, o3 & 0xFFF, o4 & 0xFFF, o5 & 0xFFF, o6 & 0xFFF, o7 & 0xFFF, o8 & 0xFFF, o9 & 0xFFF
  local q0, q1, q2, q3, q4, q5, q6, q7, q8, q9 = p0 + g0, p1 + g1, p2 + g2, p3 + g3, p4 + g4, p5 + g5, p6 + g6, p7 + g7, p8 + g8, p9 + g9
  local r0, r1, r2, r3, r4, r5, r6, r7, r8, r9 = q0 * 3, q1 * 3, q2 * 3, q3 * 3, q4 * 3, q5 * 3, q6 * 3, q7 * 3, q8 * 3, q9 * 3
  local s0, s1, s2, s3, s4, s5, s6, s7, s8 = r0 + r9, r1 + r8, r2 + r7, r3 + r6, r4 + r5, r5 + r4, r6 + r3, r7 + r2, r8 + r1
  return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + h9 + p9
end
local ml = 0
for i = 1, 2000 do ml = (ml + many_locals(i)) % 1000000007 end
print("many locals:", many_locals(1), ml)

-- many upvalues in one closure
local u01, u02, u03, u04, u05, u06, u07, u08, u09, u10 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local u11, u12, u13, u14, u15, u16, u17, u18, u19, u20 = 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
local u21, u22, u23, u24, u25, u26, u27, u28, u29, u30 = 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
local function up_user(k)
  u01 = u01 + k
  return u01 + u02 + u03 + u04 + u05 + u06 + u07 + u08 + u09 + u10 + u11 + u12 + u13 + u14 + u15 +
         u16 + u17 + u18 + u19 + u20 + u21 + u22 + u23 + u24 + u25 + u26 + u27 + u28 + u29 + u30
end
print("many upvalues:", up_user(1), up_user(2), u01)

-- stress: repeatedly build and call the 12-level closure chain
local acc = 0
for i = 1, 40000 do
  local f = nest(i)(2)(3)(4)(5)(6)(7)(8)(9)(10)
  acc = (acc + f(i) + f(1)) % 1000000007
  acc = acc + #classify(i * 37 % 2000)
end
print("stress:", acc)
