-- getinfo fields by level and by function: source, lines, names,
-- tail calls, transfers, active lines.
local function lines(f)
  local t = {}
  for l in pairs(debug.getinfo(f, "L").activelines) do t[#t + 1] = l end
  table.sort(t)
  return table.concat(t, ",")
end
local function describe(level)
  local i = debug.getinfo(level + 1, "nSltr")
  return string.format("%s %s %s %s %d-%d cur=%d tail=%s",
    tostring(i.name), i.namewhat, i.what, i.short_src, i.linedefined,
    i.lastlinedefined, i.currentline, tostring(i.istailcall))
end
local function a() print(describe(1)) print(describe(2)) return 1 end
local function b() return a() end
local t = {m = function(self) return describe(1) end}
b()
print(t:m())
print(lines(a), lines(b), lines(describe), lines(lines))
print(lines(load("local x = 1\n\nreturn x\n")))
print(lines(function(...) local n = select("#", ...)
  return n end))
local i = debug.getinfo(print)
print(i.what, i.short_src, i.source, i.currentline, i.linedefined, i.nups)
debug.sethook(function(e)
  local r = debug.getinfo(2, "r")
  if e == "return" then print("transfer", r.ftransfer, r.ntransfer) end
end, "r")
local function three() return 1, 2, 3 end
three()
debug.sethook()
print(pcall(debug.getinfo, 1, ">"))
print(debug.getinfo(100))
