-- package.searchpath with 64k templates
local p = "/nonexistent/?.x;"
for i = 1, 16 do p = p .. p end
while true do package.searchpath("m", p) end
