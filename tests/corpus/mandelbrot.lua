-- Mandelbrot set: float iteration, integer output only.
-- Prints an ASCII rendering plus bit-packed checksums of a larger grid.

local function iterations(cr, ci, limit)
  local zr, zi = 0.0, 0.0
  for n = 1, limit do
    local zr2, zi2 = zr * zr, zi * zi
    if zr2 + zi2 > 4.0 then return n end
    zi = 2.0 * zr * zi + ci
    zr = zr2 - zi2 + cr
  end
  return 0
end

-- small ASCII picture
local shades = " .:-=+*#%@"
for y = 0, 20 do
  local row = {}
  local ci = -1.2 + 2.4 * y / 20
  for x = 0, 59 do
    local cr = -2.1 + 2.8 * x / 59
    local n = iterations(cr, ci, 50)
    local idx = n == 0 and #shades or (n % (#shades - 1)) + 1
    row[#row + 1] = shades:sub(idx, idx)
  end
  print((table.concat(row):gsub("%s+$", "")))
end

-- bit-packed checksum over a larger grid (like the classic benchmark)
local function mandel_sum(size)
  local sum = 0
  local inside = 0
  for y = 0, size - 1 do
    local ci = 2.0 * y / size - 1.0
    local bits, bitnum = 0, 0
    for x = 0, size - 1 do
      local cr = 2.0 * x / size - 1.5
      local n = iterations(cr, ci, 50)
      bits = bits << 1
      if n == 0 then bits = bits | 1; inside = inside + 1 end
      bitnum = bitnum + 1
      if bitnum == 8 then
        sum = sum ~ bits
        bits, bitnum = 0, 0
      end
    end
    if bitnum > 0 then sum = sum ~ (bits << (8 - bitnum)) end
  end
  return sum, inside
end

for _, size in ipairs({ 50, 100, 200, 300 }) do
  print(size, mandel_sum(size))
end
