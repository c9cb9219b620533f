-- Count hooks of several counts over a few kinds of code.
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
for _, count in ipairs{1, 2, 7, 100} do
  local n = 0
  debug.sethook(function(ev, line) n = n + 1 end, "", count)
  local t = {}
  for i = 1, 30 do t[#t + 1] = fib(i % 8) end
  local s = table.concat(t, ",")
  debug.sethook()
  print(count, n, #s)
end
local n = 0
local co = coroutine.create(function() for i = 1, 50 do local x = math.abs(i * i) end end)
debug.sethook(co, function() n = n + 1 end, "", 3)
coroutine.resume(co)
print("coroutine", n)
print(debug.gethook())
