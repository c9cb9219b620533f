-- Reset the counter through the upvalue slots past a function's own,
-- of a loop function and of the main chunk.
local function spin() while true do end end
local main = debug.getinfo(1, "f").func
for n = 1, 6 do
  debug.setupvalue(spin, n, -1e15)
  debug.setupvalue(main, debug.getinfo(main, "u").nups + n, -1e15)
end
spin()
