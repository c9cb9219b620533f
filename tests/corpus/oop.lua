-- oop.lua: object-oriented patterns on metatables.  Classes with
-- constructors through __call, single inheritance by __index chains three
-- levels deep, super calls, overriding, class-side counters, __tostring,
-- __eq/__lt/__le between objects (sorting with them), __len, properties
-- through __index/__newindex functions, mixins copied into classes, and
-- an interface check.  (__concat is left to metatables.lua: see the
-- README's note on Debian's __concat stack bug.)

local function class(parent)
  local c = {}
  c.__index = c
  c.super = parent
  local meta = {
    __call = function(cls, ...)
      local obj = setmetatable({}, cls)
      if cls.init then cls.init(obj, ...) end
      cls.count = (rawget(cls, "count") or 0) + 1
      return obj
    end,
    __index = parent,
  }
  return setmetatable(c, meta)
end

local function is_a(obj, cls)
  local m = getmetatable(obj)
  while m do
    if m == cls then return true end
    m = m.super
  end
  return false
end

-- shapes: a three-level hierarchy
local Shape = class()
function Shape:init(name) self.name = name end
function Shape:area() return 0 end
function Shape:describe()
  return string.format("%s(area=%.2f, perim=%.2f)", self.name, self:area(), self:perimeter())
end
function Shape:perimeter() return 0 end
Shape.__tostring = function(s) return "<" .. s.name .. ">" end
Shape.__eq = function(a, b) return a:area() == b:area() end
Shape.__lt = function(a, b) return a:area() < b:area() end
Shape.__le = function(a, b) return a:area() <= b:area() end

local Rect = class(Shape)
Rect.__tostring = Shape.__tostring
Rect.__eq, Rect.__lt, Rect.__le = Shape.__eq, Shape.__lt, Shape.__le
function Rect:init(w, h, name)
  Shape.init(self, name or "rect")
  self.w, self.h = w, h
end
function Rect:area() return self.w * self.h end
function Rect:perimeter() return 2 * (self.w + self.h) end

local Square = class(Rect)
Square.__tostring = function(s) return "[" .. Rect.__tostring(s) .. " side " .. s.w .. "]" end
Square.__eq, Square.__lt, Square.__le = Shape.__eq, Shape.__lt, Shape.__le
function Square:init(side) Rect.init(self, side, side, "square") end

local Circle = class(Shape)
Circle.__tostring = Shape.__tostring
Circle.__eq, Circle.__lt, Circle.__le = Shape.__eq, Shape.__lt, Shape.__le
function Circle:init(r) Shape.init(self, "circle"); self.r = r end
function Circle:area() return 3 * self.r * self.r end -- integer "pi" keeps output exact
function Circle:perimeter() return 6 * self.r end

local sq, rc, ci = Square(3), Rect(2, 5), Circle(2)
print("shapes", tostring(sq), tostring(rc), tostring(ci))
print("describe", sq:describe(), rc:describe(), ci:describe())
print("isa", is_a(sq, Rect), is_a(sq, Shape), is_a(rc, Square), is_a(ci, Rect))
print("cmp", sq == Rect(9, 1), sq == rc, rc < sq, sq <= Rect(3, 3), ci > rc, ci >= Square(3))
print("inherit", rawget(Square, "area") == nil, Square.area == Rect.area, sq.perimeter == Rect.perimeter)

-- many objects, sorted through __lt
local shapes = {}
local s = 99
local function rnd(n)
  s = (s * 1103515245 + 12345) % 2147483648
  return (s >> 16) % n
end
for i = 1, 3000 do
  local k = rnd(3)
  if k == 0 then shapes[i] = Square(1 + rnd(30))
  elseif k == 1 then shapes[i] = Rect(1 + rnd(30), 1 + rnd(30))
  else shapes[i] = Circle(1 + rnd(17)) end
  shapes[i].id = i
end
table.sort(shapes, function(a, b)
  if a == b then
    if a.name ~= b.name then return a.name < b.name end
    return a.id < b.id
  end
  return a < b
end)
local total, eqs = 0, 0
for i = 1, #shapes do
  total = total + shapes[i]:area() + shapes[i]:perimeter()
  if i > 1 and shapes[i] == shapes[i - 1] then eqs = eqs + 1 end
end
print("sorted", total, eqs, tostring(shapes[1]), tostring(shapes[#shapes]))
print("counts", rawget(Square, "count"), rawget(Rect, "count"), rawget(Circle, "count"))

-- a stack class with __len, and a subclass that keeps a maximum
local Stack = class()
Stack.__len = function(st) return st.n end
Stack.__tostring = function(st)
  local parts = {}
  for i = 1, st.n do parts[i] = tostring(st.items[i]) end
  return "stack{" .. table.concat(parts, ",") .. "}"
end
function Stack:init() self.items, self.n = {}, 0 end
function Stack:push(v) self.n = self.n + 1; self.items[self.n] = v; return self end
function Stack:pop()
  if self.n == 0 then return nil end
  local v = self.items[self.n]
  self.items[self.n] = nil
  self.n = self.n - 1
  return v
end
function Stack:peek() return self.items[self.n] end

local MaxStack = class(Stack)
MaxStack.__len, MaxStack.__tostring = Stack.__len, Stack.__tostring
function MaxStack:init() Stack.init(self); self.maxes = Stack() end
function MaxStack:push(v)
  Stack.push(self, v)
  local m = self.maxes:peek()
  self.maxes:push((m == nil or v > m) and v or m)
  return self
end
function MaxStack:pop() self.maxes:pop(); return Stack.pop(self) end
function MaxStack:max() return self.maxes:peek() end

local ms = MaxStack()
ms:push(3):push(1):push(4):push(1):push(5)
print("stack", #ms, tostring(ms), ms:max(), ms:pop(), ms:max(), ms:pop(), ms:max(), #ms)
local msum = 0
for i = 1, 20000 do
  if rnd(3) == 0 and #ms > 0 then ms:pop() else ms:push(rnd(100000)) end
  msum = msum + (ms:max() or 0)
end
print("maxstack", #ms, msum)

-- properties through __index/__newindex functions, with validation
local Temp = {}
Temp.__index = function(t, k)
  if k == "fahrenheit" then return rawget(t, "_c") * 9 // 5 + 32 end
  if k == "celsius" then return rawget(t, "_c") end
  return Temp[k]
end
Temp.__newindex = function(t, k, v)
  if k == "fahrenheit" then rawset(t, "_c", (v - 32) * 5 // 9)
  elseif k == "celsius" then rawset(t, "_c", v)
  else rawset(t, "_bad", (rawget(t, "_bad") or 0) + 1) end
end
function Temp.warmer(t, d) t.celsius = t.celsius + d; return t end
local tt = setmetatable({_c = 20}, Temp)
tt.fahrenheit = 212
local f1 = tt.celsius
tt:warmer(-100)
tt.kelvin = 5
tt.other = 6
print("props", f1, tt.celsius, tt.fahrenheit, rawget(tt, "_bad"), rawget(tt, "kelvin"))

-- mixins: copy methods into several unrelated classes
local Comparable = {
  max_of = function(self, other) if self:key() >= other:key() then return self end return other end,
  between = function(self, lo, hi) return lo:key() <= self:key() and self:key() <= hi:key() end,
}
local Printable = {
  show = function(self) return self.kind .. ":" .. self:key() end,
}
local function include(cls, ...)
  for i = 1, select("#", ...) do
    for k, v in pairs((select(i, ...))) do cls[k] = v end
  end
  return cls
end
local Word = include(class(), Comparable, Printable)
function Word:init(w) self.w, self.kind = w, "word" end
function Word:key() return #self.w end
local Num = include(class(), Comparable, Printable)
function Num:init(n) self.n, self.kind = n, "num" end
function Num:key() return self.n end
local w1, w2, n1 = Word("hello"), Word("hi"), Num(4)
print("mixins", w1:max_of(w2):show(), n1:between(w2, w1), Num(9):between(w2, w1),
      w2:max_of(n1):show())

-- interface check: which classes implement all of a method list
local function implements(cls, names)
  for _, n in ipairs(names) do
    if type(cls[n]) ~= "function" then return false end
  end
  return true
end
local iface = {"area", "perimeter", "describe"}
print("iface", implements(Square, iface), implements(Stack, iface), implements(Word, {"show", "key", "max_of"}))

-- dynamic dispatch in a hot loop: bank accounts with overdraft rules
local Account = class()
function Account:init(owner, balance) self.owner, self.balance, self.log = owner, balance, 0 end
function Account:deposit(v) self.balance = self.balance + v; self.log = self.log + 1 end
function Account:withdraw(v)
  if v > self:limit() then return false end
  self.balance = self.balance - v
  self.log = self.log + 1
  return true
end
function Account:limit() return self.balance end
local Credit = class(Account)
function Credit:init(owner, balance, line) Account.init(self, owner, balance); self.line = line end
function Credit:limit() return self.balance + self.line end
local Frozen = class(Credit)
function Frozen:limit() return 0 end
function Frozen:deposit(v) Credit.deposit(self, v // 2) end

local accts = {}
for i = 1, 30 do
  local k = i % 3
  if k == 0 then accts[i] = Account("a" .. i, 100 * i)
  elseif k == 1 then accts[i] = Credit("c" .. i, 50 * i, 500)
  else accts[i] = Frozen("f" .. i, 10 * i, 1000) end
end
local refused = 0
for step = 1, 30000 do
  local a = accts[rnd(30) + 1]
  local amount = rnd(400)
  if rnd(2) == 0 then a:deposit(amount)
  elseif not a:withdraw(amount) then refused = refused + 1 end
end
local sum_bal, sum_log = 0, 0
for _, a in ipairs(accts) do sum_bal = sum_bal + a.balance; sum_log = sum_log + a.log end
print("bank", refused, sum_bal, sum_log, accts[1].balance, accts[2].balance, accts[3].balance)
