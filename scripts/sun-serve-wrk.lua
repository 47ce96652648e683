-- wrk script for make bench's load on `nfctag sdm serve` (scripts/bench-sun-serve.sh): every
-- request is the next path of PATHS_FILE (one a line, written by Benchmarks/SUNServeBench), the
-- file shared out between wrk's THREADS threads, so no path is sent twice until all were (then
-- they wrap around, and the answers are replays).
--   wrk -t THREADS ... -s scripts/sun-serve-wrk.lua URL -- PATHS_FILE THREADS
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  step = tonumber(args[2]) or 1
  index = id + 1 - step
end

function request()
  index = index + step
  if index > #paths then index = id + 1 end
  return wrk.format("GET", paths[index])
end
