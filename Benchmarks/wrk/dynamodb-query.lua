-- wrk script that drains one partition through `pagebench serve`'s DynamoDB JSON endpoint
-- (POST /, X-Amz-Target: DynamoDB_20120810.Query), following LastEvaluatedKey the way an
-- SDK paginator does: each connection queries the first page, then the page after its
-- last response's LastEvaluatedKey, and starts again after the last page. Throttling
-- (400 ProvisionedThroughputExceededException) and faults (500) repeat the same request,
-- and fail the run unless PAGEBENCH_WRK_EXPECT_ERRORS=1 (drain.lua says why).
--
--   wrk -t 8 -c 8 -d 10s -s Benchmarks/wrk/dynamodb-query.lua http://127.0.0.1:8080 -- 3 10
--
-- Arguments after `--`: the partition (default 3) and the Limit (default 10). Give as many
-- threads as connections (-t N -c N): the start key is kept per wrk thread.

local drain = dofile(string.match(debug.getinfo(1, "S").source, "^@(.-)[^/]*$") .. "drain.lua")

partition = "3"
limit = "10"
lastKey = nil

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
    lastKey = string.match(body, '"LastEvaluatedKey":(%b{})')
    drain.page(lastKey ~= nil)
  elseif string.find(body, "ProvisionedThroughputExceededException", 1, true) or status == 500 then
    drain.retryable(status, body)
  else
    drain.failure(status, body)
    lastKey = nil
  end
end

setup = drain.setup

function done(summary, latency, requests)
  drain.done("dynamodb-query", summary)
end
