-- A count hook that calls every function it finds in the temporaries
-- of the running function (consume is in the scratch register while it
-- is being called).
local function spin() local x = 0 while true do x = x + 1 end end
local seen = 0
debug.sethook(function()
  for n = 1, 60 do
    local name, v = debug.getlocal(2, n)
    if name == nil then break end
    if type(v) == "function" and v ~= spin then seen = seen + 1 pcall(v) end
  end
end, "", 3)
spin()
