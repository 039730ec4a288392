local s = ""
for x = 0, 2999 do s = s .. x .. "," end
return #s
