-- driver.lua HANDLER METHOD PATH BODY [NAME VALUE]...: runs one request
-- of a handler alone under `lraf run --sandbox`, as lraf serve would.
-- Prints the count before the request (x), then, when the handler
-- returns, "count N": the handler's and its deferred functions'
-- instructions.  When it stops, the request's count is the run's total
-- minus x.
local lraf = require "lraf"
local h = dofile(arg[1])
local deferred = {}
local req = {method = arg[2], path = arg[3], body = arg[4], query = {},
             headers = {}, defer = function(f) deferred[#deferred + 1] = f end}
for i = 5, #arg, 2 do req.query[arg[i]] = arg[i + 1] end
-- serve's req.defer is a C function, which runs no instructions: take
-- out what this Lua one runs per call
local k = lraf.measure(req.defer, function() end)
deferred[1] = nil
local x = lraf.count()
print(x)
local n = lraf.measure(h, req)
n = n - k * #deferred
for _, f in ipairs(deferred) do n = n + lraf.measure(f) end
print("count " .. n)
