-- Spectral norm: the largest singular value of the infinite matrix
-- A(i, j) = 1 / ((i + j) * (i + j + 1) / 2 + i + 1) (0-based), truncated
-- to n x n, estimated by the power method on A^T A.  Float arithmetic in
-- tight nested loops over arrays.

local function a(i, j)
  local ij = i + j
  return 1.0 / (ij * (ij + 1) // 2 + i + 1)
end

-- out = A * v
local function mul_a(n, v, out)
  for i = 0, n - 1 do
    local s = 0.0
    for j = 0, n - 1 do
      s = s + a(i, j) * v[j + 1]
    end
    out[i + 1] = s
  end
end

-- out = A^T * v
local function mul_at(n, v, out)
  for i = 0, n - 1 do
    local s = 0.0
    for j = 0, n - 1 do
      s = s + a(j, i) * v[j + 1]
    end
    out[i + 1] = s
  end
end

-- out = A^T * A * v, tmp is scratch space
local function mul_ata(n, v, out, tmp)
  mul_a(n, v, tmp)
  mul_at(n, tmp, out)
end

local function norm(n, rounds)
  local u, v, tmp = {}, {}, {}
  for i = 1, n do u[i] = 1.0 end
  for _ = 1, rounds do
    mul_ata(n, u, v, tmp)
    mul_ata(n, v, u, tmp)
  end
  local uv, vv = 0.0, 0.0
  for i = 1, n do
    uv = uv + u[i] * v[i]
    vv = vv + v[i] * v[i]
  end
  return math.sqrt(uv / vv)
end

for _, n in ipairs({ 10, 100, 200 }) do
  print(string.format("n=%3d  norm=%.9f", n, norm(n, 10)))
end
