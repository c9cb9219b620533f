-- lpeg.P(n) builds a tree of n nodes
-- gap: lpeg Debian's LPeg counts nothing; lraf's metered LPeg (runtime/native/nat_lpeg.c) does
local lpeg = require "lpeg"
while true do local p = lpeg.P(500000) end
