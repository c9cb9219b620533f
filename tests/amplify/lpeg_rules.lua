-- an LPeg grammar of 34 rules, each calling the next twice: compiling it walks 2^34 calls
-- gap: lpeg Debian's LPeg counts nothing; lraf's metered LPeg (runtime/native/nat_lpeg.c) does
local lpeg = require "lpeg"
local V, P = lpeg.V, lpeg.P
local g = {"r1"}
for i = 1, 34 do
  local nxt = i < 34 and V("r" .. (i + 1)) or P"a"
  g["r" .. i] = nxt * "a" + nxt * "b"
end
while true do lpeg.match(P(g), ("a"):rep(36)) end
