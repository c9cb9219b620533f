-- sums 1..n and echoes the method and body
return function(req)
  local n = tonumber(req.query.n) or 10
  local s = 0
  for i = 1, n do s = s + i end
  return 200, ("sum %d %s %s\n"):format(s, req.method, req.body),
         {["Content-Type"] = "text/plain"}
end
