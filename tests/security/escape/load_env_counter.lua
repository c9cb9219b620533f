-- load's env argument becomes the loaded function's first upvalue.  A
-- dumped function without upvalues of its own has none for it: on the
-- stock target lraf's counter came first, and env reset it at every
-- load (math.mininteger: the loop ran forever under --limit).
local function spin() local i = 0 while true do i = i + 1 end end
local dumped = string.dump(spin)
local function again()
  return load(dumped, "=spin", "b", math.mininteger)
end
print(select("#", debug.getupvalue(again(), 1)))
again()()
