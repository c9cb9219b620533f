-- file:read of 50 MB from /dev/zero, again and again
-- env: full (the sandbox has no io)
local z = assert(io.open("/dev/zero", "r"))
while true do local r = z:read(50000000) end
