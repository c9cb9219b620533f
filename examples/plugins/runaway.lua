-- runaway.lua: a plugin with a bug.  Its grammar calls back into Lua for
-- every word (lpeg.Cmt), and the callback never returns for a word that
-- starts with "z".  lraf counts the callback's instructions although LPeg
-- (C code) calls it, so the plugin's quota stops it.
local lpeg = require "lpeg"
local R, Cmt, C = lpeg.R, lpeg.Cmt, lpeg.C

local function check(_, pos, word)
  while word:sub(1, 1) == "z" do end   -- the bug: loops forever
  return pos
end
local words = (Cmt(C(R"az"^1), check) + 1)^0

return {
  name = "runaway",
  handle = function(input)
    words:match(input)
    return "checked " .. #input .. " characters"
  end,
}
