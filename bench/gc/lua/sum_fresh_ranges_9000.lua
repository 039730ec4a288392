local acc = 0
for _ = 0, 8999 do
  local r = {}
  for j = 0, 2999 do r[j + 1] = j end
  local s = 0
  for j = 1, #r do s = s + r[j] end
  acc = acc + s
end
return acc
