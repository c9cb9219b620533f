-- setlocal on the caller's locals and temporaries.
local function poke(level, n, v) return debug.setlocal(level + 1, n, v) end
local function f()
  local a, b = 1, 2
  print(poke(1, 1, 10), poke(1, 2, 20), poke(1, 40, 1))
  print(a, b)
  local s = 0
  for i = 1, 3 do
    s = s + i
    if i == 2 then print(poke(1, 3, 100)) end
  end
  print(s)
end
f()
local co = coroutine.create(function(x)
  local y = x * 2
  coroutine.yield(y)
  return x, y
end)
print(coroutine.resume(co, 4))
print(debug.getlocal(co, 1, 1), debug.getlocal(co, 1, 2))
print(debug.setlocal(co, 1, 2, 99))
print(coroutine.resume(co))
print(pcall(debug.setlocal, 40, 1, 1))
