-- fails for n divisible by 3 with a Lua error, else a 201
return function(req)
  local n = tonumber(req.query.n) or 0
  if n % 3 == 0 then error("no multiples of three: " .. n) end
  return 201, "ok\n"
end
