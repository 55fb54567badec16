-- What the drain scripts share (follow-token.lua, dynamodb-query.lua, graphql-list.lua): the
-- counters of each wrk thread, what an error answer does, and the summary line. Each script
-- loads it with `local drain = dofile(...)` from its own directory and reports through it.
--
-- An error answer (REST 429/503, DynamoDB throttling or InternalServerError, a GraphQL
-- `errors` entry) is not a page. By default a run must get none: the served store injects
-- them only with --throttle-rate or --fault-rate, so one in a run without them means the
-- endpoint is failing, and requests/s would measure error answers. The summary is printed,
-- then the run fails (exit status 1) naming the first error answer. With
-- PAGEBENCH_WRK_EXPECT_ERRORS=1 (a server with throttling or faults on) they are repeated
-- like a client's retries and counted as `retries`. A non-retryable answer (a 4xx other than
-- throttling) is a `failure`: the drain restarts, and the run fails in both modes. wrk's own
-- socket errors (connect, read, write, timeout) fail it too.
--
-- The summary line has requests/s and pages/s: pages are the successful answers, so a run
-- that passes has pages = requests.

local drain = {}

-- Per-thread counters, globals so that done() reads them with thread:get.
pages = 0
drains = 0
retries = 0
failures = 0
firstError = ""

local expectErrors = os.getenv("PAGEBENCH_WRK_EXPECT_ERRORS") == "1"

local function remember(status, body)
  if firstError == "" then
    firstError = "HTTP " .. status .. ": " .. string.sub(string.gsub(body or "", "%s+", " "), 1, 300)
  end
end

-- A page was answered; `continues` says whether it carries a continuation.
function drain.page(continues)
  pages = pages + 1
  if not continues then drains = drains + 1 end
end

-- A retryable error answer: the caller repeats the same request.
function drain.retryable(status, body)
  retries = retries + 1
  remember(status, body)
end

-- Any other answer: the caller restarts its drain.
function drain.failure(status, body)
  failures = failures + 1
  remember(status, body)
end

local threads = {}

function drain.setup(thread)
  table.insert(threads, thread)
end

-- Prints `NAME: requests=… pages=… drains=… retries=… failures=… socketErrors=… seconds=…
-- requestsPerSecond=… pagesPerSecond=…`, then exits 1 if the run got answers it must not.
function drain.done(name, summary)
  local p, d, r, f, first = 0, 0, 0, 0, ""
  for _, thread in ipairs(threads) do
    p = p + thread:get("pages")
    d = d + thread:get("drains")
    r = r + thread:get("retries")
    f = f + thread:get("failures")
    if first == "" then first = thread:get("firstError") end
  end
  local e = summary.errors
  local socket = e.connect + e.read + e.write + e.timeout
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "%s: requests=%d pages=%d drains=%d retries=%d failures=%d socketErrors=%d seconds=%.3f "
      .. "requestsPerSecond=%.1f pagesPerSecond=%.1f\n",
    name, summary.requests, p, d, r, f, socket, seconds, summary.requests / seconds, p / seconds))
  io.stdout:flush()
  local problems = {}
  if r > 0 and not expectErrors then
    table.insert(problems, r .. " error answers (throttling, faults or GraphQL errors) in a run that expects none "
      .. "(set PAGEBENCH_WRK_EXPECT_ERRORS=1 against a server with --throttle-rate or --fault-rate)")
  end
  if f > 0 then table.insert(problems, f .. " failed requests (answers that are neither a page nor retryable)") end
  if socket > 0 then
    table.insert(problems, string.format("%d socket errors (connect %d, read %d, write %d, timeout %d)",
      socket, e.connect, e.read, e.write, e.timeout))
  end
  if #problems > 0 then
    io.stderr:write(name .. ": the run failed: " .. table.concat(problems, "; ")
      .. (first ~= "" and ("; first error answer: " .. first) or "") .. "\n")
    os.exit(1)
  end
end

return drain
