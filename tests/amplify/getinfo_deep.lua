-- debug.getinfo of a level 3,000 frames up (lraf's walk visits every level below it)
-- env: full
local function deep(n)
  if n > 0 then return (deep(n - 1)) end
  while true do debug.getinfo(3000, "l") end
end
deep(20000)
