-- Simplified DeltaBlue incremental constraint solver.
-- Variables, stay/edit (unary) constraints, equality and scale (binary)
-- constraints, walkabout strengths, incremental add/remove and plan
-- extraction; runs a chain test and a projection test.

local REQUIRED, STRONG_PREFERRED, PREFERRED, STRONG_DEFAULT, NORMAL, WEAK_DEFAULT, WEAKEST =
  0, 1, 2, 3, 4, 5, 6
local STRENGTH_NAMES = { [0] = "required", "strong_preferred", "preferred",
  "strong_default", "normal", "weak_default", "weakest" }

local function stronger(a, b) return a < b end
local function weaker(a, b) return a > b end
local function weakest_of(a, b) if weaker(a, b) then return a else return b end end
local function next_weaker(s) return s + 1 end

local NONE, FORWARD, BACKWARD = 0, 1, 2

local planner -- current planner (module-level, as in the classic design)

-- ordered collection with O(1) removeFirst via head index
local Queue = {}
Queue.__index = Queue
function Queue.new() return setmetatable({ head = 1, tail = 0 }, Queue) end
function Queue:push(x) self.tail = self.tail + 1; self[self.tail] = x end
function Queue:pop()
  local h = self.head
  local x = self[h]
  self[h] = nil
  self.head = h + 1
  return x
end
function Queue:empty() return self.head > self.tail end

-- Variable ---------------------------------------------------------------
local Variable = {}
Variable.__index = Variable
function Variable.new(name, value)
  return setmetatable({ name = name, value = value or 0, constraints = {},
    determined_by = nil, mark = 0, walk = WEAKEST, stay = true }, Variable)
end
function Variable:add_constraint(c) self.constraints[#self.constraints + 1] = c end
function Variable:remove_constraint(c)
  local cs = self.constraints
  for i = #cs, 1, -1 do
    if cs[i] == c then table.remove(cs, i) end
  end
  if self.determined_by == c then self.determined_by = nil end
end

-- Constraint base --------------------------------------------------------
local Constraint = {}
Constraint.__index = Constraint

function Constraint:add_constraint()
  self:add_to_graph()
  planner:incremental_add(self)
end

function Constraint:satisfy(mark)
  self:choose_method(mark)
  if not self:is_satisfied() then
    if self.strength == REQUIRED then error("could not satisfy a required constraint") end
    return nil
  end
  self:mark_inputs(mark)
  local out = self:output()
  local overridden = out.determined_by
  if overridden ~= nil then overridden:mark_unsatisfied() end
  out.determined_by = self
  if not planner:add_propagate(self, mark) then error("cycle encountered") end
  out.mark = mark
  return overridden
end

function Constraint:destroy()
  if self:is_satisfied() then planner:incremental_remove(self)
  else self:remove_from_graph() end
end

function Constraint:is_input() return false end

-- Unary ------------------------------------------------------------------
local Unary = setmetatable({}, { __index = Constraint })
Unary.__index = Unary

function Unary.init(self, v, strength)
  self.out = v
  self.strength = strength
  self.satisfied = false
  self:add_constraint()
  return self
end
function Unary:add_to_graph() self.out:add_constraint(self); self.satisfied = false end
function Unary:choose_method(mark)
  self.satisfied = self.out.mark ~= mark and stronger(self.strength, self.out.walk)
end
function Unary:is_satisfied() return self.satisfied end
function Unary:mark_inputs(mark) end
function Unary:output() return self.out end
function Unary:recalculate()
  self.out.walk = self.strength
  self.out.stay = not self:is_input()
  if self.out.stay then self:execute() end
end
function Unary:mark_unsatisfied() self.satisfied = false end
function Unary:inputs_known() return true end
function Unary:remove_from_graph()
  if self.out ~= nil then self.out:remove_constraint(self) end
  self.satisfied = false
end

local Stay = setmetatable({}, { __index = Unary })
Stay.__index = Stay
function Stay.new(v, s) return Unary.init(setmetatable({}, Stay), v, s) end
function Stay:execute() end

local Edit = setmetatable({}, { __index = Unary })
Edit.__index = Edit
function Edit.new(v, s) return Unary.init(setmetatable({}, Edit), v, s) end
function Edit:is_input() return true end
function Edit:execute() end

-- Binary -----------------------------------------------------------------
local Binary = setmetatable({}, { __index = Constraint })
Binary.__index = Binary

function Binary.init(self, a, b, strength)
  self.v1, self.v2 = a, b
  self.strength = strength
  self.direction = NONE
  self:add_constraint()
  return self
end

function Binary:choose_method(mark)
  local v1, v2, s = self.v1, self.v2, self.strength
  if v1.mark == mark then
    if v2.mark ~= mark and stronger(s, v2.walk) then self.direction = FORWARD
    else self.direction = NONE end
    return
  end
  if v2.mark == mark then
    if v1.mark ~= mark and stronger(s, v1.walk) then self.direction = BACKWARD
    else self.direction = NONE end
    return
  end
  if weaker(v1.walk, v2.walk) then
    self.direction = stronger(s, v1.walk) and BACKWARD or NONE
  else
    self.direction = stronger(s, v2.walk) and FORWARD or BACKWARD
  end
end
function Binary:add_to_graph()
  self.v1:add_constraint(self)
  self.v2:add_constraint(self)
  self.direction = NONE
end
function Binary:is_satisfied() return self.direction ~= NONE end
function Binary:mark_inputs(mark) self:input().mark = mark end
function Binary:input() if self.direction == FORWARD then return self.v1 end return self.v2 end
function Binary:output() if self.direction == FORWARD then return self.v2 end return self.v1 end
function Binary:recalculate()
  local i, o = self:input(), self:output()
  o.walk = weakest_of(self.strength, i.walk)
  o.stay = i.stay
  if o.stay then self:execute() end
end
function Binary:mark_unsatisfied() self.direction = NONE end
function Binary:inputs_known(mark)
  local i = self:input()
  return i.mark == mark or i.stay or i.determined_by == nil
end
function Binary:remove_from_graph()
  if self.v1 then self.v1:remove_constraint(self) end
  if self.v2 then self.v2:remove_constraint(self) end
  self.direction = NONE
end

local Equality = setmetatable({}, { __index = Binary })
Equality.__index = Equality
function Equality.new(a, b, s) return Binary.init(setmetatable({}, Equality), a, b, s) end
function Equality:execute() self:output().value = self:input().value end

local Scale = setmetatable({}, { __index = Binary })
Scale.__index = Scale
function Scale.new(src, scale, offset, dst, s)
  local self = setmetatable({ scale = scale, offset = offset }, Scale)
  return Binary.init(self, src, dst, s)
end
function Scale:add_to_graph()
  Binary.add_to_graph(self)
  self.scale:add_constraint(self)
  self.offset:add_constraint(self)
end
function Scale:remove_from_graph()
  Binary.remove_from_graph(self)
  if self.scale then self.scale:remove_constraint(self) end
  if self.offset then self.offset:remove_constraint(self) end
end
function Scale:mark_inputs(mark)
  Binary.mark_inputs(self, mark)
  self.scale.mark = mark
  self.offset.mark = mark
end
function Scale:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value * self.scale.value + self.offset.value
  else
    self.v1.value = (self.v2.value - self.offset.value) // self.scale.value
  end
end
function Scale:recalculate()
  local i, o = self:input(), self:output()
  o.walk = weakest_of(self.strength, i.walk)
  o.stay = i.stay and self.scale.stay and self.offset.stay
  if o.stay then self:execute() end
end

-- Plan -------------------------------------------------------------------
local Plan = {}
Plan.__index = Plan
function Plan.new() return setmetatable({ n = 0 }, Plan) end
function Plan:add(c) self.n = self.n + 1; self[self.n] = c end
function Plan:execute() for i = 1, self.n do self[i]:execute() end end

-- Planner ----------------------------------------------------------------
local Planner = {}
Planner.__index = Planner
function Planner.new() return setmetatable({ current_mark = 0 }, Planner) end
function Planner:new_mark() self.current_mark = self.current_mark + 1; return self.current_mark end

function Planner:incremental_add(c)
  local mark = self:new_mark()
  local overridden = c:satisfy(mark)
  while overridden ~= nil do overridden = overridden:satisfy(mark) end
end

function Planner:incremental_remove(c)
  local out = c:output()
  c:mark_unsatisfied()
  c:remove_from_graph()
  local unsatisfied = self:remove_propagate_from(out)
  local strength = REQUIRED
  repeat
    for i = 1, #unsatisfied do
      local u = unsatisfied[i]
      if u.strength == strength then self:incremental_add(u) end
    end
    strength = next_weaker(strength)
  until strength == WEAKEST
end

function Planner:add_consumers(v, coll)
  local det = v.determined_by
  local cs = v.constraints
  for i = 1, #cs do
    local c = cs[i]
    if c ~= det and c:is_satisfied() then coll:push(c) end
  end
end

function Planner:make_plan(sources)
  local mark = self:new_mark()
  local plan = Plan.new()
  local todo = sources
  while not todo:empty() do
    local c = todo:pop()
    if c:output().mark ~= mark and c:inputs_known(mark) then
      plan:add(c)
      c:output().mark = mark
      self:add_consumers(c:output(), todo)
    end
  end
  return plan
end

function Planner:extract_plan(constraints)
  local sources = Queue.new()
  for i = 1, #constraints do
    local c = constraints[i]
    if c:is_input() and c:is_satisfied() then sources:push(c) end
  end
  return self:make_plan(sources)
end

function Planner:add_propagate(c, mark)
  local todo = Queue.new()
  todo:push(c)
  while not todo:empty() do
    local d = todo:pop()
    if d:output().mark == mark then
      self:incremental_remove(c)
      return false
    end
    d:recalculate()
    self:add_consumers(d:output(), todo)
  end
  return true
end

function Planner:remove_propagate_from(out)
  out.determined_by = nil
  out.walk = WEAKEST
  out.stay = true
  local unsatisfied = {}
  local todo = Queue.new()
  todo:push(out)
  while not todo:empty() do
    local v = todo:pop()
    local cs = v.constraints
    for i = 1, #cs do
      local c = cs[i]
      if not c:is_satisfied() then unsatisfied[#unsatisfied + 1] = c end
    end
    local det = v.determined_by
    for i = 1, #cs do
      local nx = cs[i]
      if nx ~= det and nx:is_satisfied() then
        nx:recalculate()
        todo:push(nx:output())
      end
    end
  end
  return unsatisfied
end

-- Tests ------------------------------------------------------------------
local checks = 0
local function check(cond, what)
  if not cond then error("check failed: " .. what) end
  checks = checks + 1
end

local function chain_test(n)
  planner = Planner.new()
  local prev, first, last
  for i = 0, n do
    local v = Variable.new("v" .. i, 0)
    if prev then Equality.new(prev, v, REQUIRED) end
    if i == 0 then first = v end
    if i == n then last = v end
    prev = v
  end
  Stay.new(last, STRONG_DEFAULT)
  local edit = Edit.new(first, PREFERRED)
  local plan = planner:extract_plan({ edit })
  for i = 0, 99 do
    first.value = i
    plan:execute()
    check(last.value == i, "chain " .. i)
  end
  return last.value, last.walk
end

local function change(v, newv)
  local edit = Edit.new(v, PREFERRED)
  local plan = planner:extract_plan({ edit })
  for _ = 1, 10 do
    v.value = newv
    plan:execute()
  end
  edit:destroy()
end

local function projection_test(n)
  planner = Planner.new()
  local scale = Variable.new("scale", 10)
  local offset = Variable.new("offset", 1000)
  local src, dst
  local dests = {}
  for i = 0, n - 1 do
    src = Variable.new("src" .. i, i)
    dst = Variable.new("dst" .. i, i)
    dests[#dests + 1] = dst
    Stay.new(src, NORMAL)
    Scale.new(src, scale, offset, dst, REQUIRED)
  end
  change(src, 17)
  check(dst.value == 1170, "projection 1")
  change(dst, 1050)
  check(src.value == 5, "projection 2")
  change(scale, 5)
  for i = 0, n - 2 do check(dests[i + 1].value == i * 5 + 1000, "projection 3") end
  change(offset, 2000)
  for i = 0, n - 2 do check(dests[i + 1].value == i * 5 + 2000, "projection 4") end
  local sum = 0
  for i = 1, #dests do sum = sum + dests[i].value end
  return sum
end

for _, n in ipairs({ 10, 100, 1000, 2000 }) do
  local v, w = chain_test(n)
  print(string.format("chain(%d): last=%d walk=%s", n, v, STRENGTH_NAMES[w]))
  print(string.format("projection(%d): sum=%d", n, projection_test(n)))
end
print("checks passed: " .. checks)
