-- allocates without bound, a megabyte at a time: only the memory
-- limit stops it
return function(req)
  local t = {}
  while true do t[#t + 1] = string.rep("x", 1 << 20) end
end
