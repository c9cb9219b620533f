-- require over a package.path of 4096 templates (its searcher runs searchpath's search)
local p = "/nonexistent/?.x;"
for i = 1, 12 do p = p .. p end
package.path = p
while true do pcall(require, "m") end
