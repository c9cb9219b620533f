-- Linked-list benchmark: builds cons lists and runs the Takeuchi-like
-- "tail" recursion over them using only list-length comparisons.

local function cons(v, nxt) return { val = v, next = nxt } end

local function make_list(n)
  if n == 0 then return nil end
  return cons(n, make_list(n - 1))
end

local function length(l)
  local n = 0
  while l do n = n + 1; l = l.next end
  return n
end

local function is_shorter(x, y)
  local xt, yt = x, y
  while yt ~= nil do
    if xt == nil then return true end
    xt = xt.next
    yt = yt.next
  end
  return false
end

local calls = 0
local function tail(x, y, z)
  calls = calls + 1
  if is_shorter(y, x) then
    return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y))
  end
  return z
end

local total = 0
for i = 1, 250 do
  local r = tail(make_list(15), make_list(10), make_list(6))
  total = total + length(r)
end
print("result length sum", total, "calls", calls)

-- a few plain list operations too
local function reverse(l)
  local r = nil
  while l do r = cons(l.val, r); l = l.next end
  return r
end
local function to_string(l)
  local parts = {}
  while l do parts[#parts + 1] = tostring(l.val); l = l.next end
  return table.concat(parts, ",")
end
local function map(l, f)
  if l == nil then return nil end
  return cons(f(l.val), map(l.next, f))
end
local function filter(l, p)
  if l == nil then return nil end
  if p(l.val) then return cons(l.val, filter(l.next, p)) end
  return filter(l.next, p)
end
local l = make_list(12)
print(to_string(l))
print(to_string(reverse(l)))
print(to_string(map(l, function(v) return v * v end)))
print(to_string(filter(l, function(v) return v % 3 == 0 end)))
