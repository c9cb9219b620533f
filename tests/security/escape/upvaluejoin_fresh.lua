-- Join a loop's counter slot to a fresh cell holding a huge negative.
local cell = -1e15
local function holder() return cell end
local function spin() while true do end end
for n = 1, 8 do pcall(debug.upvaluejoin, spin, n, holder, 1) end
spin()
