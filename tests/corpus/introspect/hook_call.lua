-- Call and return hooks: events, names and what kind of function.
local ev = {}
local function leaf(x) return x + 1 end
local function mid(x) return leaf(x) * 2 end
local function tail(x) return mid(x) end
debug.sethook(function(e)
  local i = debug.getinfo(2, "nS")
  ev[#ev + 1] = e .. ":" .. tostring(i.name) .. ":" .. i.what
end, "cr")
tail(1)
pcall(leaf, 2)
local s = string.rep("a", 3)
for k in pairs({1}) do end
debug.sethook()
print(#ev)
print(table.concat(ev, "\n"))
