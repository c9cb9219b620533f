-- runs away: only the request limit stops it
return function(req)
  local i = 0
  while true do i = i + 1 end
end
