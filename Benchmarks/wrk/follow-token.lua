-- wrk script that drains a `pagebench serve` range by following nextToken, the same
-- closed loop as `pagebench http-bench`: each connection requests the first page, then
-- the page its last response's nextToken names, and starts again after the last page.
-- 429 and 503 (injected throttling and faults, S21) repeat the same request.
--
--   wrk -t 8 -c 8 -d 10s -s Benchmarks/wrk/follow-token.lua http://127.0.0.1:8080 -- /scan limit=100
--
-- Arguments after `--`: the endpoint path (default /scan) and the query without the
-- token (default none), e.g. `/partitions/3/items "limit=25&filter=match"`.
--
-- The token is kept per wrk thread, so give as many threads as connections (-t N -c N):
-- with more connections than threads, connections of one thread would share one token.

path = "/scan"
query = ""
token = nil
pages = 0
drains = 0
retries = 0
failures = 0

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
    pages = pages + 1
    -- Tokens are URL-safe base64: letters, digits, '-' and '_'; null at the end.
    token = string.match(body, '"nextToken":"([%w%-_]+)"')
    if token == nil then drains = drains + 1 end
  elseif status == 429 or status == 503 then
    retries = retries + 1
  else
    failures = failures + 1
    token = nil
  end
end

threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local p, d, r, f = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    p = p + thread:get("pages")
    d = d + thread:get("drains")
    r = r + thread:get("retries")
    f = f + thread:get("failures")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "follow-token: requests=%d pages=%d drains=%d retries=%d failures=%d seconds=%.3f requestsPerSecond=%.1f\n",
    summary.requests, p, d, r, f, seconds, summary.requests / seconds))
end
