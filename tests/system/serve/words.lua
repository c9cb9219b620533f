-- builds n words in coroutines and defers a tally to after the response
return function(req)
  local n = tonumber(req.query.n) or 10
  local gen = coroutine.wrap(function()
    for i = 1, n do coroutine.yield(("w%d"):format(i)) end
  end)
  local t = {}
  for i = 1, n do t[i] = gen() end
  local body = table.concat(t, " ")
  req.defer(function()
    local c = 0
    for w in body:gmatch("%S+") do c = c + #w end
    return c
  end)
  return 200, body .. "\n"
end
