local m, n = {}, 0
for i = 0, 4999 do
  local v = {}
  for j = 0, 99 do v[j + 1] = j end
  if m[i % 10] == nil then n = n + 1 end
  m[i % 10] = v
end
return n
