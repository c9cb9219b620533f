-- Join a cell of our own to the shared counter and reset it through it.
local cell = 0
local function holder() return cell end
local function setter(v) cell = v end
local function spin() while true do end end
for n = 1, 8 do
  if pcall(debug.upvaluejoin, holder, 1, spin, n) then
    debug.setupvalue(holder, 1, -1e15)
  end
end
spin()
