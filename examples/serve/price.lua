-- A lraf serve handler whose cost lraf bound proves: the price of an
-- order of ten lines, tax included (README, "Admission").
local function with_tax(cents)
  return cents + cents * 21 // 100
end

return function(req)
  local total = 0
  for line = 1, 10 do
    total = total + with_tax(line * 250)
  end
  return 200, "total " .. total .. " cents\n"
end
