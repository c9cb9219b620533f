-- usage: lua5.4 tests/gen/timeit.lua PROGRAM.lua [DEPTH]
-- Runs PROGRAM like `lua5.4 PROGRAM.lua` would (same chunk name, no
-- arguments) and writes the CPU time it took, in milliseconds, to stderr as
-- the last line "cpu_ms N". Interpreter start-up is not included.
-- With DEPTH > 0 the chunk is called from under DEPTH extra Lua frames, so
-- comparing its output with a plain run catches results that depend on
-- the Lua stack layout (see the vcat note in gen.lua).
local path = assert(arg[1], "usage: timeit.lua PROGRAM.lua [DEPTH]")
local depth = math.tointeger(tonumber(arg[2] or "0")) or 0
local chunk = assert(loadfile(path))
local function nest(n)
  if n <= 0 then return chunk() end
  local pad1, pad2, pad3, pad4, pad5, pad6, pad7 = n, n, n, n, n, n, n
  local r = nest(n - 1)
  return r, pad1, pad7
end
local t0 = os.clock()
nest(depth)
io.stdout:flush()
io.stderr:write(string.format("cpu_ms %.3f\n", (os.clock() - t0) * 1000))
