-- The debug library's upvalue functions on C functions that lraf wraps
-- to charge their native work (string.rep, table.concat, ..., the C
-- searchers and their loaders, with a limit).  lua5.4 shows their own upvalues (none); the wrapper's (a box
-- with the cost model, the original function) stay lraf's: replacing
-- the box by another userdata crashed lraf before.  Prints the same as
-- lua5.4.
local fs = {string.rep, table.concat, string.format, string.gsub, print,
            select, coroutine.wrap(function() end), io.write}
for i, f in ipairs(fs) do
  print(i, debug.getinfo(f, "u").nups, debug.getupvalue(f, 1),
        debug.getupvalue(f, 2))
  print(pcall(debug.setupvalue, f, 1, io.stdout),
        pcall(debug.setupvalue, f, 2, {}))
  print(type(debug.upvalueid(f, 1)), type(debug.upvalueid(f, 2)))
  print(pcall(debug.upvaluejoin, f, 1, function() return i end, 1))
end
-- the C searchers and the loaders they return, wrapped to charge the
-- modules they load: lua5.4's upvalues (the package table, none)
for i = 3, 4 do
  local s = package.searchers[i]
  local name, val = debug.getupvalue(s, 1)
  print("searcher", i, debug.getinfo(s, "u").nups, name, val == package)
end
local loader, path = package.searchers[3]("lpeg")
print("loader", debug.getinfo(loader, "u").nups, debug.getupvalue(loader, 1),
      debug.getupvalue(loader, 2))
print(debug.setupvalue(loader, 2, {}), debug.setupvalue(loader, 1, 42))
print("loaded", type((loader("lpeg", path))))
print(string.rep("ab", 3), table.concat({1, 2}, "-"), string.format("%d", 7))
collectgarbage()
print("intact")
