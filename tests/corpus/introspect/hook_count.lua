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
-- The hook removed right after a loop whose body calls a function that
-- loops itself: an event due at the CALL of sethook is lua5.4's too.
local function work(k) local s = 0 for i = 1, k do s = s + i end return s end
for count = 1, 13 do
  local got = {}
  for _, bound in ipairs{1, 2, 5, 17, 30} do
    local n, s = 0, 0
    debug.sethook(function() n = n + 1 end, "", count)
    for i = 1, bound do s = s + work(i) end
    debug.sethook()
    got[#got + 1] = n
  end
  print("loops", count, table.concat(got, " "))
end
-- A hook that removes itself, and one that sets another: no event
-- inside a hook, as in lua5.4.
for count = 1, 9 do
  local n, m, s = 0, 0, 0
  debug.sethook(function()
    n = n + 1
    if n == 3 then debug.sethook(function() m = m + 1 end, "", count + 1) end
    if m == 4 then debug.sethook() end
  end, "", count)
  for i = 1, 12 do s = s + work(i) end
  debug.sethook()
  print("rehook", count, n, m)
end
-- A coroutine's count hook set from outside: counted from sethook, and
-- the events due at its yields and at its end are called there.
for count = 1, 13 do
  local got = {}
  for _, bound in ipairs{1, 5, 17} do
    for yields = 0, 1 do
      local n = 0
      local co = coroutine.create(function(b)
        local s = 0
        for i = 1, b do
          s = s + work(i)
          if yields == 1 then coroutine.yield(s) end
        end
        return s
      end)
      debug.sethook(co, function() n = n + 1 end, "", count)
      local ok = coroutine.resume(co, bound)
      while coroutine.status(co) == "suspended" do
        got[#got + 1] = n
        ok = coroutine.resume(co)
      end
      got[#got + 1] = n
    end
  end
  print("coroutine", count, table.concat(got, " "))
end
