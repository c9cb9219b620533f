-- pcall / error / xpcall / assert: error levels, non-string error values
-- (tables, numbers, nil, booleans, objects with __tostring), message
-- handlers, nested and rethrown errors, runtime error kinds, stack
-- overflow, errors in metamethods and in message handlers.
-- Positions ("chunk:line:") and variable info are stripped before printing
-- and tracebacks are never printed, so output is location-independent.

local function clean(msg)
  if type(msg) ~= "string" then return msg end
  -- strip position, variable info and the called function's name (the
  -- latter two are reconstructed from bytecode at error time)
  return (msg:gsub("^.-:%-?%d+: ", ""):gsub(" %([%a ]+ '[^']*'%)$", "")
             :gsub("^(bad argument #%d+) to '[^']*'", "%1"))
end
local function show(ok, ...)
  local parts = { tostring(ok) }
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) == "table" then
      local mt = getmetatable(v)
      v = (mt and mt.__tostring) and ("obj:" .. tostring(v)) or ("table:" .. tostring(v.code))
    end
    parts[#parts + 1] = tostring(clean(v))
  end
  return table.concat(parts, " | ")
end

print("ok results:", show(pcall(function(a, b) return a + b, a * b end, 3, 4)))
print("string error:", show(pcall(error, "plain")))
print("level 0:", show(pcall(function() error("no position", 0) end)))
-- level 1 vs 2: keep whether a position was added, not its value
local function has_pos(f)
  local _, e = pcall(f)
  return type(e) == "string" and e:find("^.-:%-?%d+: ") ~= nil
end
local function lvl2() error("blame caller", 2) end
print("positions:", has_pos(function() error("x") end), has_pos(function() error("x", 0) end),
      has_pos(function() lvl2() end), has_pos(function() error({}) end))
print("table error:", show(pcall(error, { code = 42 })))
print("number error:", show(pcall(error, 3.5)), show(pcall(error, 7)))
print("nil error:", show(pcall(error)), select("#", pcall(error)))
print("boolean error:", show(pcall(error, false)))
local E = { __tostring = function(e) return "E<" .. e.msg .. ">" end }
print("object error:", show(pcall(error, setmetatable({ msg = "custom" }, E))))

-- runtime error kinds
local cases = {
  { "arith nil", function() local x; return x + 1 end },
  { "arith table", function() return {} * 2 end },
  { "concat table", function() return "a" .. {} end },
  { "concat nil", function() local t = {}; return t.missing .. "x" end },
  { "call nil", function() local f; f() end },
  { "call number", function() local n = 5; n() end },
  { "index nil", function() local t; return t.x end },
  { "index number", function() local n = 1; return n.x end },
  { "newindex nil", function() local t; t.x = 1 end },
  { "compare", function() return {} < {} end },
  { "compare mixed", function() return 1 < "x" end },
  { "len", function() return #5 end },
  { "unm", function() return -{} end },
  { "bnot float", function() return ~1.5 end },
  { "shift string", function() return "a" << 1 end },
  { "int div zero", function() return 1 // 0 end },
  { "int mod zero", function() return 1 % 0 end },
  { "nil index key", function() local t = {}; t[nil] = 1 end },
  { "nan index key", function() local t = {}; t[0 / 0] = 1 end },
  { "for init", function() for i = "a", 2 do end end },
  { "setmetatable", function() setmetatable(1, {}) end },
  { "bad arg", function() string.rep() end },
  { "tostring arg", function() return ("x"):rep(1, 2, 3, {}) end },
  { "assert false", function() assert(false) end },
  { "assert msg", function() assert(nil, "custom assert") end },
  { "assert table", function() assert(false, { code = "A" }) end },
  { "assert ok", function() return assert(1, "unused") end },
}
for _, c in ipairs(cases) do print(c[1] .. ":", show(pcall(c[2]))) end

-- xpcall with handlers
local function handler(e)
  return "handled(" .. tostring(clean(e)) .. ")"
end
print("xpcall ok:", show(xpcall(function(a) return a * 2 end, handler, 21)))
print("xpcall err:", show(xpcall(function() error("bad") end, handler)))
print("xpcall table:", show(xpcall(function() error({ code = 1 }) end, function(e) e.code = e.code + 1; return e end)))
print("xpcall traceback type:", show(xpcall(function() error("tb") end, function(e)
  local tb = debug.traceback(e, 1)
  return type(tb) .. ":" .. tostring(tb:find("stack traceback:", 1, true) ~= nil)
end)))
print("xpcall handler errors:", (xpcall(function() error("first") end, function(e) error("in handler") end)))
print("xpcall runtime:", show(xpcall(function() local t; return t[1] end, handler)))

-- nested pcall and rethrow
local function inner() error({ code = "inner" }) end
local function middle()
  local ok, e = pcall(inner)
  e.code = e.code .. "+middle"
  error(e)
end
print("rethrow:", show(pcall(middle)))
local depth_seen = 0
local function nest(n)
  if n == 0 then error("bottom " .. depth_seen, 0) end
  local ok, e = pcall(nest, n - 1)
  depth_seen = depth_seen + 1
  error(e .. "<" .. n, 0)
end
print("nested:", show(pcall(nest, 5)))

-- errors in metamethods and in iterators
local mt = { __index = function(t, k) error("no field " .. k) end, __add = function() error({ code = "add" }) end }
local o = setmetatable({}, mt)
print("meta index:", show(pcall(function() return o.foo end)))
print("meta add:", show(pcall(function() return o + 1 end)))
print("iterator:", show(pcall(function() for x in function() error("iter fail", 0) end do end end)))
print("tostring meta error:", show(pcall(tostring, setmetatable({}, { __tostring = function() return 1 end }))))

-- stack overflow is catchable
-- (the frame is made large with 180 locals so that the Lua stack limit
-- is reached after a few thousand calls instead of ~200000; nothing is
-- allocated on the way down, which keeps the GC from rescanning the stack)
local function recurse(n)
  local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32, v33, v34, v35, v36, v37, v38, v39, v40, v41, v42, v43, v44, v45, v46, v47, v48, v49, v50, v51, v52, v53, v54, v55, v56, v57, v58, v59, v60, v61, v62, v63, v64, v65, v66, v67, v68, v69, v70, v71, v72, v73, v74, v75, v76, v77, v78, v79, v80, v81, v82, v83, v84, v85, v86, v87, v88, v89, v90, v91, v92, v93, v94, v95, v96, v97, v98, v99, v100, v101, v102, v103, v104, v105, v106, v107, v108, v109, v110, v111, v112, v113, v114, v115, v116, v117, v118, v119, v120, v121, v122, v123, v124, v125, v126, v127, v128, v129, v130, v131, v132, v133, v134, v135, v136, v137, v138, v139, v140, v141, v142, v143, v144, v145, v146, v147, v148, v149, v150, v151, v152, v153, v154, v155, v156, v157, v158, v159, v160, v161, v162, v163, v164, v165, v166, v167, v168, v169, v170, v171, v172, v173, v174, v175, v176, v177, v178, v179, v180 = n
  return v1 + recurse(n + 1)
end
local ok, e = pcall(recurse, 1)
print("stack overflow:", ok, (clean(e):match("stack overflow") ~= nil))
local looping = setmetatable({}, {})
getmetatable(looping).__index = function(t, k) return t[k] end
local okc, ec = pcall(function() return looping.x end)
print("C stack overflow:", okc, (clean(ec):match("stack overflow") ~= nil))
local function crec(n) return select(2, pcall(crec, n + 1)) end
print("deep pcall chain:", type(crec(1)))

-- error values passing through coroutines and wrap
local co = coroutine.wrap(function() error({ code = "co" }) end)
print("through wrap:", show(pcall(co)))

-- error() with a non-string message still works with levels
print("level with table:", show(pcall(function() error({ code = "lvl" }, 2) end)))

-- stress: lots of protected calls
local count, sum = 0, 0
for i = 1, 10000 do
  local ok2, v = pcall(function(x)
    if x % 3 == 0 then error({ code = x }) end
    if x % 5 == 0 then error("five", 0) end
    return x
  end, i)
  if ok2 then sum = sum + v
  elseif type(v) == "table" then sum = sum - v.code; count = count + 1
  else count = count + 100 end
end
print("stress:", count, sum)
