-- upvalueid identities and upvaluejoin.
local x, y = 1, 2
local function fx() return x end
local function fy() return y end
local function fxy() return x + y end
print(debug.upvalueid(fx, 1) == debug.upvalueid(fxy, 1))
print(debug.upvalueid(fy, 1) == debug.upvalueid(fxy, 2))
print(debug.upvalueid(fx, 1) == debug.upvalueid(fy, 1))
for n = 0, 4 do print(n, debug.upvalueid(fxy, n) ~= nil) end
print(pcall(debug.upvalueid, print, 1))
print(pcall(debug.upvaluejoin, fx, 1, fy, 2))
print(pcall(debug.upvaluejoin, fx, 2, fy, 1))
print(pcall(debug.upvaluejoin, fx, 1, print, 1))
debug.upvaluejoin(fx, 1, fy, 1)
print(fx(), debug.upvalueid(fx, 1) == debug.upvalueid(fy, 1))
y = 20
print(fx(), fy(), fxy())
debug.upvaluejoin(fxy, 1, fxy, 2)
print(fxy())
local fs = {}
for i = 1, 3 do fs[i] = function() return i end end
print(debug.upvalueid(fs[1], 1) == debug.upvalueid(fs[2], 1))
debug.upvaluejoin(fs[1], 1, fs[3], 1)
print(fs[1](), fs[2](), fs[3]())
