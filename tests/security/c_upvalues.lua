-- The debug library's upvalue functions on C functions.  C code trusts
-- what it keeps in its upvalues: string.gmatch's iterator its state and
-- subject, coroutine.wrap's function its coroutine, io.lines' iterator
-- its file, and lraf's native-charging wrappers (with a limit: the
-- built-ins, utf8.codes' iterator, the C searchers and their loaders)
-- their cost box and the function they call; the functions of lraf's
-- metered LPeg the one whose steps they count).  lua5.4 lets a script
-- replace them and then crashes or reads freed memory; lraf lets no
-- upvalue of a C function be read or set: getupvalue and setupvalue
-- return nothing, upvalueid fails and upvaluejoin refuses (getinfo's
-- nups still counts them, as lua5.4's does).
-- Every function still works afterwards; the script prints "intact".
local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1)
                                       return b * 2 end)
local path = arg and arg[0] or "tests/security/c_upvalues.lua"
local lpeg = require("lpeg")
local fs = {
  string.gmatch(string.rep("abc", 50), "."), co, io.lines(path),
  utf8.codes("h\u{e9}llo"), (utf8.codes("x")), string.rep, table.concat,
  string.format, string.gsub, print, select, io.write,
  package.searchers[1], package.searchers[2], package.searchers[3],
  package.searchers[4], (package.searchers[3]("lpeg")), lpeg.P,
  getmetatable(lpeg.P(1)).__mul,
}
for i, f in ipairs(fs) do
  for n = -1, 3 do
    assert(select("#", debug.getupvalue(f, n)) == 0, i)
    assert(select("#", debug.setupvalue(f, n, io.stdout)) == 0, i)
    assert(select("#", debug.setupvalue(f, n, 42)) == 0, i)
    assert(select("#", debug.setupvalue(f, n, "x")) == 0, i)
    assert(debug.upvalueid(f, n) == nil, i)
    assert(not pcall(debug.upvaluejoin, f, n, function() return i end, 1))
    assert(not pcall(debug.upvaluejoin, function() return i end, 1, f, n))
  end
end
collectgarbage()
collectgarbage()
-- each still does its job
local s = {}
for _ = 1, 4 do s[#s + 1] = fs[1]() end
assert(table.concat(s) == "abca")
assert(co(1) == 2 and co(5) == 10)
assert(fs[3]():match("^%-%-"))
local it, str, i0 = utf8.codes("h\u{e9}llo")
local cps = {}
for _, c in it, str, i0 do cps[#cps + 1] = c end
assert(#cps == 5 and cps[2] == 0xe9)
assert(string.rep("ab", 3) == "ababab")
assert(table.concat({1, 2}, "-") == "1-2")
assert(string.format("%d", 7) == "7")
assert(type(require("lpeg")) == "table")
assert(fs[19](fs[18]"a", lpeg.P"b" * 1):match("abx") == 4)
print("intact")
