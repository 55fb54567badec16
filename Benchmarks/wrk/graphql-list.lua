-- wrk script that drains one partition through `pagebench serve`'s GraphQL endpoint
-- (POST /graphql, AppSync-style listItems), following nextToken the way an AppSync client
-- does: each connection asks for the first page, then the page its last response's
-- nextToken names, and starts again after the last page. The query text is the same on
-- every request (the token travels in variables), as a client's would be, so the server's
-- parsed-document cache applies. Errors (GraphQL `errors`) repeat the same request, and fail
-- the run unless PAGEBENCH_WRK_EXPECT_ERRORS=1 (drain.lua says why).
--
--   wrk -t 8 -c 8 -d 10s -s Benchmarks/wrk/graphql-list.lua http://127.0.0.1:8080 -- 3 10
--
-- Arguments after `--`: the partition (default 3) and the limit (default 10). Give as many
-- threads as connections (-t N -c N): the token is kept per wrk thread.

local drain = dofile(string.match(debug.getinfo(1, "S").source, "^@(.-)[^/]*$") .. "drain.lua")

partition = "3"
limit = "10"
token = nil
query = "query List($p: Int, $l: Int, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t) "
  .. "{ items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount } }"

function init(args)
  if args[1] ~= nil then partition = args[1] end
  if args[2] ~= nil then limit = args[2] end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local t = "null"
  if token ~= nil then t = '"' .. token .. '"' end
  local body = '{"query":"' .. query .. '","variables":{"p":' .. partition .. ',"l":' .. limit .. ',"t":' .. t .. '}}'
  return wrk.format(nil, "/graphql", nil, body)
end

function response(status, headers, body)
  if status == 200 and not string.find(body, '"errors"', 1, true) then
    token = string.match(body, '"nextToken":"([%w%-_]+)"')
    drain.page(token ~= nil)
  elseif status == 200 then
    drain.retryable(status, body)
  else
    drain.failure(status, body)
    token = nil
  end
end

setup = drain.setup

function done(summary, latency, requests)
  drain.done("graphql-list", summary)
end
