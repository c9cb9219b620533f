-- csv.lua: a plugin that splits one line of CSV into fields with an
-- LPeg grammar (quoted fields may hold commas and doubled quotes).
-- Plugins return a table with a name and a handle(input) function.
local lpeg = require "lpeg"
local P, C, Cs, Ct = lpeg.P, lpeg.C, lpeg.Cs, lpeg.Ct

local quoted = '"' * Cs(((P(1) - '"') + P'""' / '"')^0) * '"'
local plain = C((P(1) - P',')^0)
local line = Ct((quoted + plain) * (',' * (quoted + plain))^0) * -1

return {
  name = "csv",
  handle = function(input)
    local fields = line:match(input)
    if not fields then error("not a CSV line: " .. input) end
    -- a little Lua work per field, so that longer lines cost more
    local width = 0
    for _, f in ipairs(fields) do width = width + #f end
    return #fields .. " fields, " .. width .. " characters"
  end,
}
