-- What debug.getregistry shows.
local r = debug.getregistry()
local keys = {}
for k, v in pairs(r) do
  keys[#keys + 1] = type(k) .. ":" .. tostring(type(k) == "string" and k or math.type(k)) .. "=" .. type(v)
end
table.sort(keys)
print(table.concat(keys, " "))
print(r._LOADED == package.loaded, r[2] == _G, type(r[1]), r._PRELOAD == package.preload)
r.mine = "kept"
print(debug.getregistry().mine)
debug.sethook(function() end, "c")
print(type(debug.getregistry()._HOOKKEY))
debug.sethook()
print(debug.getregistry() == debug.getregistry())
