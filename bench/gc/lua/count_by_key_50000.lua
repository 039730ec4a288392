local acc, n = {}, 0
for i = 0, 49999 do
  local k = "user-" .. (i % 1300)
  local c = acc[k]
  if c == nil then n = n + 1; c = 0 end
  acc[k] = c + 1
end
return n
