-- debug.traceback over 20,000 frames, from their bottom
-- env: full
local function deep(n)
  if n > 0 then return (deep(n - 1)) end
  while true do debug.traceback("x", 1) end
end
deep(20000)
