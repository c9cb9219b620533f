-- error(msg, level) walking 60,000 frames to its level on every call
local function deep(n)
  if n > 0 then return (deep(n - 1)) end
  while true do pcall(error, "x", 100000) end
end
deep(60000)
