-- One full collection of a live heap of maps and vectors, the data of
-- bench/gc_bench.cpp's BM_FullCollection: records {id, name, score, tags,
-- pos}, added until collectgarbage("count") reaches MB megabytes.
-- usage: lua5.4 lua_pause.lua [MB]   prints: records, live KB, median ms of 15 collections
local mb = tonumber(arg[1] or "8")
collectgarbage("stop")
local data, i = {}, 0
while collectgarbage("count") < mb * 1024 do
  data[#data + 1] = {id = i, name = "user-" .. i, score = i * 0.5,
                     tags = {"a" .. (i % 7), "b" .. (i % 11), "c"}, pos = {i, i + 1}}
  i = i + 1
end
collectgarbage("restart")
collectgarbage("collect")
local times = {}
for r = 1, 15 do
  local t0 = os.clock()
  collectgarbage("collect")
  times[r] = (os.clock() - t0) * 1000
end
table.sort(times)
print(string.format("records %d  live %.0f KB  full collection %.3f ms (median of 15)", #data,
                    collectgarbage("count"), times[8]))
