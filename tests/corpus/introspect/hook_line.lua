-- Line hooks: the lines reported, in order.
local lines = {}
local function f(n)
  local s = 0
  for i = 1, n do
    if i % 2 == 0 then
      s = s + i
    else
      s = s - 1
    end
  end
  return s
end
debug.sethook(function(ev, line) lines[#lines + 1] = line end, "l")
f(4)
local t = {}
for i = 1, 3 do t[i] = f(i) end
debug.sethook()
print(table.concat(lines, " "))
print(debug.gethook())
