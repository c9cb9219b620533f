-- Bounce: balls with pseudo-random velocities bouncing inside a box.
-- Integer arithmetic, method calls, and a private LCG.

local Random = {}
Random.__index = Random
function Random.new(seed) return setmetatable({ seed = seed }, Random) end
function Random:next()
  self.seed = ((self.seed * 1309) + 13849) & 65535
  return self.seed
end

local Ball = {}
Ball.__index = Ball
function Ball.new(rng)
  return setmetatable({
    x = rng:next() % 500, y = rng:next() % 500,
    vx = (rng:next() % 300) - 150, vy = (rng:next() % 300) - 150,
  }, Ball)
end

function Ball:bounce()
  local xlim, ylim = 500, 500
  local hit = false
  self.x = self.x + self.vx
  self.y = self.y + self.vy
  if self.x > xlim then self.x = xlim; self.vx = -math.abs(self.vx); hit = true end
  if self.x < 0 then self.x = 0; self.vx = math.abs(self.vx); hit = true end
  if self.y > ylim then self.y = ylim; self.vy = -math.abs(self.vy); hit = true end
  if self.y < 0 then self.y = 0; self.vy = math.abs(self.vy); hit = true end
  return hit
end

local function run(seed, nballs, steps)
  local rng = Random.new(seed)
  local balls = {}
  for i = 1, nballs do balls[i] = Ball.new(rng) end
  local bounces = 0
  for _ = 1, steps do
    for i = 1, #balls do
      if balls[i]:bounce() then bounces = bounces + 1 end
    end
  end
  local sx, sy = 0, 0
  for _, b in ipairs(balls) do sx = sx + b.x; sy = sy + b.y end
  return bounces, sx, sy
end

local grand = 0
for iter = 1, 150 do
  local b, sx, sy = run(74755 + iter, 100, 50)
  grand = grand + b
  if iter % 50 == 0 then print(iter, b, sx, sy) end
end
print("total bounces", grand)
