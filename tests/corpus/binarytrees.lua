-- Binary trees: allocate many complete binary trees, walk them and let
-- the collector reclaim them.  A tree of depth 0 is a leaf {}; a deeper
-- one is {left, right}.  One big "stretch" tree is made first, one tree
-- lives for the whole run, and for each depth 4, 6, ... a batch of
-- short-lived trees is built and checked (node count and an item sum).

local MIN_DEPTH = 4
local MAX_DEPTH = 12

local function make(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { make(depth), make(depth) }
end

-- Number of nodes in the tree.
local function count(t)
  local l = t[1]
  if l == nil then return 1 end
  return 1 + count(l) + count(t[2])
end

-- Same tree, but every node carries an item: the root gets `item`, the
-- left child 2*item-1 and the right child 2*item.
local function make_items(item, depth)
  if depth == 0 then return { item = item } end
  return { make_items(2 * item - 1, depth - 1), make_items(2 * item, depth - 1),
           item = item }
end

-- Alternating sum of items: a node adds its item and subtracts its
-- children's sums, so each level flips sign.
local function check_items(t)
  local l = t[1]
  if l == nil then return t.item end
  return t.item - check_items(l) + check_items(t[2])
end

local stretch = MAX_DEPTH + 1
print(string.format("stretch depth %d: %d nodes", stretch, count(make(stretch))))

local long_lived = make(MAX_DEPTH)

for depth = MIN_DEPTH, MAX_DEPTH, 2 do
  local trees = 1 << (MAX_DEPTH - depth + MIN_DEPTH)
  local nodes = 0
  for _ = 1, trees do
    nodes = nodes + count(make(depth))
  end
  local items = 0
  for i = 1, trees // 16 do
    items = items + check_items(make_items(i, depth)) +
            check_items(make_items(-i, depth))
  end
  print(string.format("%5d trees of depth %2d: %8d nodes, item check %d",
                      trees, depth, nodes, items))
end

print(string.format("long lived depth %d: %d nodes", MAX_DEPTH, count(long_lived)))
