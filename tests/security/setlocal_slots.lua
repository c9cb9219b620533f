-- debug.setlocal on the slots Lua's VM trusts without checking: lua5.4
-- corrupts its heap with each of these (a numeric for loop's state
-- changed to a table, the table of a constructor replaced while its
-- items are computed, the subject string of a running gsub replaced and
-- collected).  Under lraf each write is refused with an error, the
-- program goes on, and the collector finds an intact heap.
local function churn()
  local junk = {}
  for i = 1, 2000 do junk[i] = {string.rep("y", 40) .. i} end
  collectgarbage()
  collectgarbage()
end

-- 1. a numeric for loop's state: OP_FORLOOP updates the count as an
--    integer in place, keeping whatever type tag the slot has
local t = {}
local function loop()
  local sum = 0
  for k = 1, 3 do
    sum = sum + k
    debug.setlocal(1, 3, t)      -- (for state): the count (sum is 1)
  end
  return sum
end
print("for state", pcall(loop))
-- the same kind of value is accepted
local function loop2()
  local sum = 0
  for k = 1, 3 do
    sum = sum + k
    if k == 1 then print("for state int", debug.setlocal(1, 3, 0)) end
  end
  return sum
end
print("loop2", loop2())
-- stripped of its debug information, the loop's state is "(temporary)"
-- (how tests/security/chaos.lua found this: hooks into a loaded dump)
local function sloop()
  local sum = 0
  for k = 1, 3 do
    sum = sum + k
    debug.setlocal(1, 3, {})
  end
  return sum
end
print("stripped", pcall(load(string.dump(sloop, true))))
churn()

-- 2. the table a constructor is filling: OP_SETLIST stores into it
--    without checking that it is still a table
local function item()
  debug.setlocal(2, 1, 42)       -- the constructor's table, a temporary
  return 1
end
print("temporary", pcall(function() local r = {item(), 2} return #r end))
churn()

-- 3. a C function's stack: gsub keeps a pointer into its subject
local s = string.rep("ab", 20000)
local n = 0
local ok, e = pcall(string.gsub, s, "a", function()
  n = n + 1
  if n == 1 then
    debug.setlocal(2, 1, "x")    -- gsub's subject string
    s = nil
    churn()
  end
  return "c"
end)
print("C stack", ok, e)
churn()
print("intact")
