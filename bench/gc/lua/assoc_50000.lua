local m, n = {}, 0
for i = 0, 49999 do
  if m[i] == nil then n = n + 1 end
  m[i] = i * i
end
return n
