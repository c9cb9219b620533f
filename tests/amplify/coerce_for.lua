-- a numeric for whose limit is a string of 100,000 digits
-- gap: stock the loop's conversion is the VM's; the lraf VM charges it
local s = ("1"):rep(100000)
while true do for i = 1, s do break end end
