-- an LPeg grammar that backtracks exponentially on a 36-byte subject
-- gap: all lpeg.match runs in Debian's LPeg, which counts nothing
local lpeg = require "lpeg"
local V = lpeg.V
local g = lpeg.P{"S", S = "a" * V"S" * "x" + "a" * V"S" + lpeg.P(true)}
while true do lpeg.match(g, ("a"):rep(36)) end
