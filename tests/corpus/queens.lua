-- N-queens: backtracking with boolean arrays (count all solutions for
-- several board sizes) and a bitmask solver; prints the first 8x8 board.

local function solve_arrays(n)
  local cols, d1, d2, pos = {}, {}, {}, {}
  local solutions, first = 0, nil
  local function place(r)
    if r > n then
      solutions = solutions + 1
      if not first then first = { table.unpack(pos, 1, n) } end
      return
    end
    for c = 1, n do
      if not cols[c] and not d1[r + c] and not d2[r - c + n] then
        cols[c], d1[r + c], d2[r - c + n] = true, true, true
        pos[r] = c
        place(r + 1)
        cols[c], d1[r + c], d2[r - c + n] = false, false, false
      end
    end
  end
  place(1)
  return solutions, first
end

local function solve_bits(n)
  local all = (1 << n) - 1
  local function go(cols, l, r)
    if cols == all then return 1 end
    local count = 0
    local avail = all & ~(cols | l | r)
    while avail ~= 0 do
      local bit = avail & -avail
      avail = avail ~ bit
      count = count + go(cols | bit, ((l | bit) << 1) & all, (r | bit) >> 1)
    end
    return count
  end
  return go(0, 0, 0)
end

for n = 4, 10 do
  local s = solve_arrays(n)
  print(n, s, solve_bits(n))
end
print("bits 11:", solve_bits(11))
print("bits 12:", solve_bits(12))

local _, board = solve_arrays(8)
for r = 1, 8 do
  local row = {}
  for c = 1, 8 do row[c] = board[r] == c and "Q" or "." end
  print(table.concat(row, " "))
end
