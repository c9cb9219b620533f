-- Small ray tracer: spheres + checkered plane, point lights, shadows and
-- one level of reflection. Vectors use arithmetic metamethods. Output is
-- an ASCII image and an integer checksum of quantised intensities.

local sqrt = math.sqrt

local V = {}
V.__index = V
local function vec(x, y, z) return setmetatable({ x = x, y = y, z = z }, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y, a.z + b.z) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y, a.z - b.z) end
V.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y, a * b.z) end
  return vec(a.x * b, a.y * b, a.z * b)
end
V.__unm = function(a) return vec(-a.x, -a.y, -a.z) end
function V.dot(a, b) return a.x * b.x + a.y * b.y + a.z * b.z end
function V.len(a) return sqrt(a:dot(a)) end
function V.norm(a) local l = a:len(); return vec(a.x / l, a.y / l, a.z / l) end

local spheres = {
  { c = vec(0, 1, 6), r = 1.0, refl = 0.3, shade = 0.9 },
  { c = vec(-2.2, 0.7, 7.5), r = 0.7, refl = 0.1, shade = 0.6 },
  { c = vec(2.0, 0.5, 5.0), r = 0.5, refl = 0.6, shade = 0.8 },
}
local lights = { { p = vec(-4, 6, 1), i = 0.8 }, { p = vec(5, 4, 2), i = 0.4 } }
local EPS = 1e-6

local function hit_sphere(s, o, d)
  local oc = o - s.c
  local b = oc:dot(d)
  local c = oc:dot(oc) - s.r * s.r
  local disc = b * b - c
  if disc < 0 then return nil end
  local sq = sqrt(disc)
  local t = -b - sq
  if t > EPS then return t end
  t = -b + sq
  if t > EPS then return t end
  return nil
end

local function nearest(o, d)
  local best, what = math.huge, nil
  for i = 1, #spheres do
    local t = hit_sphere(spheres[i], o, d)
    if t and t < best then best, what = t, spheres[i] end
  end
  if d.y < -EPS then -- plane y = 0
    local t = -o.y / d.y
    if t > EPS and t < best then best, what = t, "plane" end
  end
  if what then return best, what end
  return nil
end

local function trace(o, d, depth)
  local t, obj = nearest(o, d)
  if not t then return 0.05 + 0.1 * math.max(0, d.y) end
  local p = o + d * t
  local n, shade, refl
  if obj == "plane" then
    n = vec(0, 1, 0)
    local cx, cz = math.floor(p.x), math.floor(p.z)
    shade = ((cx + cz) % 2 == 0) and 0.8 or 0.3
    refl = 0.15
  else
    n = (p - obj.c):norm()
    shade, refl = obj.shade, obj.refl
  end
  local color = 0.08 * shade
  for _, l in ipairs(lights) do
    local tol = l.p - p
    local dist = tol:len()
    local ld = tol * (1 / dist)
    local nd = n:dot(ld)
    if nd > 0 then
      local st = nearest(p + n * 1e-4, ld)
      if not st or st > dist then color = color + l.i * nd * shade end
    end
  end
  if depth > 0 and refl > 0 then
    local r = d - n * (2 * d:dot(n))
    color = color * (1 - refl) + refl * trace(p + n * 1e-4, r:norm(), depth - 1)
  end
  return color
end

local eye = vec(0, 1.5, -1)
local function render(w, h, visit)
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      local dx = (x + 0.5) / w * 2 - 1
      local dy = 1 - (y + 0.5) / h * 2
      local d = vec(dx * 0.9, dy * 0.5 - 0.12, 1.6):norm()
      visit(x, y, trace(eye, d, 2))
    end
  end
end

local ramp = " .:-=+*#%@"
local rows = {}
render(64, 24, function(x, y, c)
  local k = math.floor(math.min(c, 0.999) * #ramp) + 1
  rows[y + 1] = (rows[y + 1] or "") .. ramp:sub(k, k)
end)
for _, r in ipairs(rows) do print((r:gsub("%s+$", ""))) end

local sum, hist = 0, {}
for i = 0, 15 do hist[i] = 0 end
render(160, 100, function(x, y, c)
  local q = math.floor(math.min(c, 1.0) * 255 + 0.5)
  sum = (sum * 31 + q) % 1000000007
  hist[q >> 4] = hist[q >> 4] + 1
end)
print("checksum", sum)
local hs = {}
for i = 0, 15 do hs[#hs + 1] = hist[i] end
print("histogram", table.concat(hs, " "))
