-- gethook shows only the script's own hook; removing every hook must
-- not stop the accounting.
debug.sethook(function() end, "crl", 1)
local h, mask, count = debug.gethook()
assert(mask == "crl" and count == 1)
debug.sethook()
assert(debug.gethook() == nil)
local x = 0
while true do x = x + 1 end
