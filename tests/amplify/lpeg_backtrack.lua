-- an LPeg grammar that backtracks exponentially on a 36-byte subject
-- gap: lpeg Debian's LPeg counts nothing; lraf's metered LPeg (runtime/native/nat_lpeg.c) does
local lpeg = require "lpeg"
local V = lpeg.V
local g = lpeg.P{"S", S = "a" * V"S" * "x" + "a" * V"S" + lpeg.P(true)}
while true do lpeg.match(g, ("a"):rep(36)) end
