-- debug.getinfo's 'u' fields of Lua closures, C functions and the
-- closures the libraries make.
local a, b, c = 1, 2, 3
local function none() return 1 end
local function one() return a end
local function three(x, y, ...) return a + b + c + x + y end
local function env() return print end
local function nested()
  return function() return a, b end
end
for _, f in ipairs{none, one, three, env, nested, nested(), print, pcall,
                   coroutine.wrap(function() end), string.gmatch("x", "x"),
                   require, math.random, load("return ...")} do
  local i = debug.getinfo(f, "u")
  print(i.nups, i.nparams, i.isvararg)
end
for level = 1, 3 do
  local i = debug.getinfo(level, "u")
  if i then print("level", level, i.nups, i.nparams, i.isvararg) end
end
local names = {}
for k, v in pairs(debug.getinfo(three)) do
  if k ~= "func" and k ~= "activelines" then names[#names + 1] = k .. "=" .. tostring(v) end
end
table.sort(names)
print(table.concat(names, " "))
for i, s in ipairs(package.searchers) do print("searcher", i, debug.getinfo(s, "u").nups) end
-- library functions as the host installed them: os.exit under lraf run
-- is the command's own (it writes the report first), with lua5.4's shape
for _, name in ipairs{"exit", "time", "clock"} do
  local f = os[name]
  print(name, debug.getinfo(f, "u").nups, debug.getupvalue(f, 1))
end
