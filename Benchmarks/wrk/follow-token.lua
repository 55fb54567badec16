-- wrk script that drains a `pagebench serve` range by following nextToken, the same
-- closed loop as `pagebench http-bench`: each connection requests the first page, then
-- the page its last response's nextToken names, and starts again after the last page.
-- 429 and 503 (injected throttling and faults, S21) repeat the same request, and fail the
-- run unless PAGEBENCH_WRK_EXPECT_ERRORS=1 (drain.lua says why).
--
--   wrk -t 8 -c 8 -d 10s -s Benchmarks/wrk/follow-token.lua http://127.0.0.1:8080 -- /scan limit=100
--
-- Arguments after `--`: the endpoint path (default /scan) and the query without the
-- token (default none), e.g. `/partitions/3/items "limit=25&filter=match"`.
--
-- The token is kept per wrk thread, so give as many threads as connections (-t N -c N):
-- with more connections than threads, connections of one thread would share one token.

local drain = dofile(string.match(debug.getinfo(1, "S").source, "^@(.-)[^/]*$") .. "drain.lua")

path = "/scan"
query = ""
token = nil

function init(args)
  if args[1] ~= nil then path = args[1] end
  if args[2] ~= nil then query = args[2] end
end

function request()
  local q = query
  if token ~= nil then
    if q ~= "" then q = q .. "&" end
    q = q .. "nextToken=" .. token
  end
  if q == "" then
    return wrk.format("GET", path)
  end
  return wrk.format("GET", path .. "?" .. q)
end

function response(status, headers, body)
  if status == 200 then
    -- Tokens are URL-safe base64: letters, digits, '-' and '_'; null at the end.
    token = string.match(body, '"nextToken":"([%w%-_]+)"')
    drain.page(token ~= nil)
  elseif status == 429 or status == 503 then
    drain.retryable(status, body)
  else
    drain.failure(status, body)
    token = nil
  end
end

setup = drain.setup

function done(summary, latency, requests)
  drain.done("follow-token", summary)
end
