-- wrk script that drains one partition through `pagebench serve`'s DynamoDB JSON endpoint
-- (POST /, X-Amz-Target: DynamoDB_20120810.Query), following LastEvaluatedKey the way an
-- SDK paginator does: each connection queries the first page, then the page after its
-- last response's LastEvaluatedKey, and starts again after the last page. Throttling
-- (400 ProvisionedThroughputExceededException) and faults (500) repeat the same request.
--
--   wrk -t 8 -c 8 -d 10s -s Benchmarks/wrk/dynamodb-query.lua http://127.0.0.1:8080 -- 3 10
--
-- Arguments after `--`: the partition (default 3) and the Limit (default 10). Give as many
-- threads as connections (-t N -c N): the start key is kept per wrk thread.

partition = "3"
limit = "10"
lastKey = nil
pages = 0
drains = 0
retries = 0
failures = 0

function init(args)
  if args[1] ~= nil then partition = args[1] end
  if args[2] ~= nil then limit = args[2] end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
  wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.Query"
end

function request()
  local body = '{"TableName":"pagebench","KeyConditionExpression":"pk = :p",'
    .. '"ExpressionAttributeValues":{":p":{"N":"' .. partition .. '"}},"Limit":' .. limit
  if lastKey ~= nil then
    body = body .. ',"ExclusiveStartKey":' .. lastKey
  end
  return wrk.format(nil, "/", nil, body .. "}")
end

function response(status, headers, body)
  if status == 200 then
    pages = pages + 1
    lastKey = string.match(body, '"LastEvaluatedKey":(%b{})')
    if lastKey == nil then drains = drains + 1 end
  elseif string.find(body, "ProvisionedThroughputExceededException", 1, true) or status == 500 then
    retries = retries + 1
  else
    failures = failures + 1
    lastKey = nil
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
    "dynamodb-query: requests=%d pages=%d drains=%d retries=%d failures=%d seconds=%.3f requestsPerSecond=%.1f\n",
    summary.requests, p, d, r, f, seconds, summary.requests / seconds))
end
