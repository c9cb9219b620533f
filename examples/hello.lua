-- hello.lua: the bundled example `make run` uses.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local squares = {}
for i = 1, 10 do squares[#squares + 1] = i * i end
print("hello from lraf", fib(15), table.concat(squares, " "))
