-- loadfile of a 1 MB Lua file, again and again (compiled and rewritten)
-- env: full (the sandbox has no io to write the file)
local path = "/tmp/lraf_amplify_loadfile.lua"
local f = assert(io.open(path, "w"))
local line = "a = a + 1\n"
for i = 1, 17 do line = line .. line end
f:write("local a = 0\n", line, "return a\n")
f:close()
while true do loadfile(path) end
