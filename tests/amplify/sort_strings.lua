-- table.sort of 100 strings of a million bytes that differ only at their ends
local base = "x"
for i = 1, 20 do base = base .. base end
local t0 = {}
for i = 1, 100 do t0[i] = base .. ((i * 7919) % 100) end
while true do table.sort(table.move(t0, 1, #t0, 1, {})) end
