-- Storage: builds trees of tables (arrays of arrays) recursively, with
-- leaf arrays of varying size driven by an LCG; counts allocations.

local seed = 74755
local function rnd()
  seed = ((seed * 1309) + 13849) & 65535
  return seed
end

local count = 0
local function build(depth)
  count = count + 1
  if depth == 1 then
    local n = rnd() % 10 + 1
    local leaf = {}
    for i = 1, n do leaf[i] = i end
    return leaf
  end
  local node = {}
  for i = 1, 4 do node[i] = build(depth - 1) end
  return node
end

local function measure(t)
  local nodes, leaves, items, maxd = 0, 0, 0, 0
  local function walk(x, d)
    if d > maxd then maxd = d end
    if type(x[1]) == "table" then
      nodes = nodes + 1
      for i = 1, #x do walk(x[i], d + 1) end
    else
      leaves = leaves + 1
      items = items + #x
    end
  end
  walk(t, 1)
  return nodes, leaves, items, maxd
end

local total = 0
for iter = 1, 20 do
  count = 0
  local tree = build(7)
  total = total + count
  if iter % 5 == 0 then print(iter, count, measure(tree)) end
end
print("total allocations", total)

-- a tree using string-keyed records, walked with sorted keys
local function record_tree(depth, label)
  if depth == 0 then return { label = label, value = #label } end
  return { label = label, left = record_tree(depth - 1, label .. "L"),
           right = record_tree(depth - 1, label .. "R") }
end
local function fold(t, acc)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = t[k]
    if type(v) == "table" then acc = fold(v, acc)
    elseif type(v) == "number" then acc = acc * 31 % 1000003 + v
    else acc = (acc + #v) % 1000003 end
  end
  return acc
end
print("record tree fold", fold(record_tree(10, "root"), 7))
