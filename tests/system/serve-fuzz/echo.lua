-- answers with what it was given: the sizes of the body, the query and
-- the headers, and one query value as a response header when it is safe
return function(req)
  local nq, nh = 0, 0
  for _ in pairs(req.query) do nq = nq + 1 end
  for _ in pairs(req.headers) do nh = nh + 1 end
  local h = {}
  local v = req.query.v
  if v and not v:find("[%c]") then h["X-Echo"] = v end
  local st = tonumber(req.query.status)
  if not st or st < 100 or st > 599 or st % 1 ~= 0 then st = 200 end
  return st, ("%s %s %d %d %d\n"):format(req.method, req.path, #req.body,
                                         nq, nh), h
end
