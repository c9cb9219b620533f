-- tests/bench/bc_rates.lua - calibration of the lraf VM's size charges
-- (runtime/rt_lravm.c): the time of comparing long strings, of moving
-- values through VARARG and a call, of CONCAT's copy and of a table of
-- an __index chain, in units of the mean time of a simple instruction.  Run it on the lraf VM's lua: build/lravm/lua/lua.
local N = 32 * 1024 * 1024
local a = string.rep("x", N - 1) .. "y"
local b = string.rep("x", N - 1) .. "y"
local t = os.clock()
local c = 0
for i = 1, 20 do if a == b then c = c + 1 end end
local teq = (os.clock() - t) / 20 / (N / 1024)
t = os.clock()
for i = 1, 20 do if a < b then c = c + 1 end end
local tlt = (os.clock() - t) / 20 / (N / 1024)
local function f(...) return select('#', ...) end
local args = {}
for i = 1, 200000 do args[i] = i end
local function g(...) local n = 0 for i = 1, 20 do n = n + f(...) end return n end
t = os.clock()
g(table.unpack(args))
local tva = (os.clock() - t) / 20 / (200000 / 1024)
-- CONCAT: a 32 MB string and one more byte, a new string each time
t = os.clock()
for i = 1, 20 do local _ = a .. "z" end
local tcat = (os.clock() - t) / 20 / (N / 1024)
-- a miss through a chain of 1998 tables (Lua's limit is 2000)
local ch = {}
for i = 1, 1998 do ch = setmetatable({}, {__index = ch}) end
t = os.clock()
for i = 1, 2000 do local _ = ch.missing end
local tchain = (os.clock() - t) / 2000 / 1998
-- mean instruction time: a loop of simple instructions
local s = 0
t = os.clock()
for i = 1, 20000000 do s = s + i end
local tins = (os.clock() - t) / (20000000 * 3)
print(string.format("ins %.2f ns; per 1024 bytes ==: %.0f ins, <: %.0f ins; per 1024 values vararg+call: %.0f ins", tins*1e9, teq/tins, tlt/tins, tva/tins))
print(string.format("per 1024 bytes CONCAT: %.0f ins; per table of an __index chain: %.2f ins (%.0f per 1024)", tcat/tins, tchain/tins, tchain/tins*1024))
