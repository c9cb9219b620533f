-- A count hook that writes a huge negative into every temporary of the
-- running loop function, the scratch register included if it were
-- visible.  (Writing a number over a table there, a constructor's
-- perhaps, is refused with an error: pcall.)
local function spin()
  local x = 0
  while true do x = x + 1 end
end
debug.sethook(function()
  if debug.getinfo(2, "f").func ~= spin then return end
  for n = 2, 40 do
    local name = debug.getlocal(2, n)
    if name == nil then break end
    if name == "(temporary)" then
      pcall(debug.setlocal, 3, n, -1e15)  -- level 3 under pcall
    end
  end
end, "", 1)
spin()
