-- Tracebacks of coroutines and from message handlers, with levels.
local co = coroutine.create(function(x)
  local function deep(n)
    if n == 0 then coroutine.yield(debug.traceback("inside", 1)) return 0 end
    return deep(n - 1)
  end
  deep(x)
  error("failed here")
end)
print(coroutine.resume(co, 3))
print(debug.traceback(co))
print(debug.traceback(co, "msg", 1))
print(coroutine.resume(co))
print(debug.traceback(co))
print(debug.traceback(co, nil, 2))
print(type(debug.traceback({})))
print(debug.traceback(nil) == nil, type(debug.traceback(co, 12)))
local co2 = coroutine.wrap(function()
  local t = xpcall(function() local x = nil; return x.y end,
                   function(m) return debug.traceback(m, 2) end)
  return t
end)
print(co2())
