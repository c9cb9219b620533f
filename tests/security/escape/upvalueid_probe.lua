-- Find slots with upvalueid past a function's own and join them.
local function a() while true do end end
local function b() return 1 end
for n = 1, 8 do
  if debug.upvalueid(a, n) and debug.upvalueid(b, n) then
    pcall(debug.upvaluejoin, a, n, b, n)
  end
end
local nups = debug.getinfo(a, "u").nups
assert(nups == 0, "nups " .. nups)
a()
