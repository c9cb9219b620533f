-- string.rep("", math.maxinteger) loops n times on nothing
string.rep("", math.maxinteger)
