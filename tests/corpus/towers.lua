-- Towers of Hanoi with explicit disk stacks (linked records), checking
-- the size rule on every move; plus the closed-form move count.

local piles
local moves = 0

local function push_disk(disk, pile)
  local top = piles[pile]
  if top and disk.size >= top.size then
    error("cannot put a big disk on a smaller one")
  end
  disk.next = top
  piles[pile] = disk
end

local function pop_disk(pile)
  local top = piles[pile]
  if top == nil then error("attempt to remove a disk from an empty pile") end
  piles[pile] = top.next
  top.next = nil
  return top
end

local function move_top(from, to)
  push_disk(pop_disk(from), to)
  moves = moves + 1
end

local function move_disks(n, from, to)
  if n == 1 then
    move_top(from, to)
  else
    local other = 6 - from - to
    move_disks(n - 1, from, other)
    move_top(from, to)
    move_disks(n - 1, other, to)
  end
end

local function run(ndisks)
  piles = {}
  for i = ndisks, 1, -1 do push_disk({ size = i }, 1) end
  moves = 0
  move_disks(ndisks, 1, 3)
  local n = 0
  local d = piles[3]
  while d do n = n + 1; d = d.next end
  return moves, n, piles[1] == nil and piles[2] == nil
end

for n = 1, 18 do
  local m, onto, empty = run(n)
  assert(m == (1 << n) - 1)
  if n % 4 == 0 or n < 4 then print(n, m, onto, empty) end
end

-- iterative variant: move sequence encoded as digits
local function iterative(n)
  local seq = {}
  for m = 1, (1 << n) - 1 do
    local from = (m & (m - 1)) % 3
    local to = ((m | (m - 1)) + 1) % 3
    seq[#seq + 1] = from .. to
  end
  return table.concat(seq, " ")
end
print(iterative(4))
