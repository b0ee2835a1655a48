-- wrk script for StoryGate load tests: every request carries a real RS256 token, rotating through a file of
-- tokens (one per line, from `ENV=dev storygate mint-token --count N --out FILE`).
--
-- Parameters (environment variables, all optional):
--   TOKENS        the token file                              (default: tokens.txt)
--   WRK_METHOD    the request method                          (default: GET)
--   WRK_PATH      the request path                            (default: /v1/me)
--   WRK_BODY_FILE a file whose bytes are sent as the body     (default: no body)
--   WRK_CONTENT_TYPE the body's Content-Type                  (default: application/json when there is a body)
--   WRK_APP_CHECK_FILE a file of App Check tokens, one per line: each request also carries X-Firebase-AppCheck,
--                 the token at the ID token's place modulo their count (so a user keeps one) (default: none)
--   WRK_HEADER    one more header, `Name: value`, on every request   (default: none)
--   WRK_RATE      requests per second for the whole run, paced (default: as fast as possible)
--   WRK_THREADS, WRK_CONNECTIONS  wrk's -t and -c (for spreading the tokens and the pace over the threads)
--
-- At the end it prints one machine-readable line (bench/lib.sh reads it):
--   WRK_RESULT requests=N seconds=S rps=R p50_us=.. p90_us=.. p99_us=.. p999_us=.. max_us=.. non2xx=.. connect=.. read=.. write=.. timeout=..
-- `non2xx` is wrk's count of responses with a status of 400 or more (wrk calls it "Non-2xx or 3xx responses").
-- No `response()` callback is defined: it would make wrk build a Lua table per response and cost client CPU.

-- wrk runs setup(thread) and then that thread's init() before it sets up the next thread, so the thread count
-- comes from WRK_THREADS (set by bench/lib.sh), not from counting setup() calls.
local thread_count = 0

function setup(thread)
  thread:set("thread_number", thread_count)
  thread_count = thread_count + 1
end

local tokens = {}
local app_check_tokens = {}
local index = 0
local method, path, body, headers
local rate, paced_delay, sent, second_start, sent_at_second_start, scale

function init(args)
  local file = os.getenv("TOKENS") or "tokens.txt"
  for line in io.lines(file) do
    if #line > 0 then tokens[#tokens + 1] = line end
  end
  assert(#tokens > 0, "no tokens in " .. file)
  -- Each thread starts at its own place in the file, so two threads do not send the same token at once.
  local number = tonumber(thread_number) or 0
  local total = tonumber(os.getenv("WRK_THREADS") or "") or 1
  index = math.floor(number * #tokens / total)
  method = os.getenv("WRK_METHOD") or "GET"
  path = os.getenv("WRK_PATH") or "/v1/me"
  headers = {}
  local body_file = os.getenv("WRK_BODY_FILE")
  if body_file and #body_file > 0 then
    local handle = assert(io.open(body_file, "rb"))
    body = handle:read("*a")
    handle:close()
    headers["Content-Type"] = os.getenv("WRK_CONTENT_TYPE") or "application/json"
  end
  local extra = os.getenv("WRK_HEADER")
  if extra and #extra > 0 then
    local name, value = extra:match("^([^:]+):%s*(.*)$")
    assert(name, "WRK_HEADER is `Name: value`")
    headers[name] = value
  end
  local app_check_file = os.getenv("WRK_APP_CHECK_FILE")
  if app_check_file and #app_check_file > 0 then
    for line in io.lines(app_check_file) do
      if #line > 0 then app_check_tokens[#app_check_tokens + 1] = line end
    end
    assert(#app_check_tokens > 0, "no App Check tokens in " .. app_check_file)
  end
  local total_rate = tonumber(os.getenv("WRK_RATE") or "")
  if total_rate and total_rate > 0 then
    rate = total_rate / total
    local connections = (tonumber(os.getenv("WRK_CONNECTIONS") or "") or 64) / total
    paced_delay = connections * 1000 / rate -- milliseconds between requests on one connection
    sent, scale = 0, 1.0
  end
end

function request()
  index = index % #tokens + 1
  headers["Authorization"] = "Bearer " .. tokens[index]
  if #app_check_tokens > 0 then
    headers["X-Firebase-AppCheck"] = app_check_tokens[(index - 1) % #app_check_tokens + 1]
  end
  if rate then sent = sent + 1 end
  return wrk.format(method, path, headers, body)
end

-- Pacing (only with WRK_RATE): wrk waits delay() milliseconds before each request of a connection. wrk takes
-- whole milliseconds, so the wait is dithered between floor and ceiling; once a second (os.time's resolution) the
-- wait is scaled by what was achieved against the goal, which absorbs the response time and the rounding.
if os.getenv("WRK_RATE") and tonumber(os.getenv("WRK_RATE")) and tonumber(os.getenv("WRK_RATE")) > 0 then
  function delay()
    local now = os.time()
    if second_start == nil then
      second_start, sent_at_second_start = now, sent
    elseif now > second_start then
      local achieved = (sent - sent_at_second_start) / (now - second_start)
      if achieved > 0 then
        scale = math.max(0.2, math.min(5.0, scale * achieved / rate))
      end
      second_start, sent_at_second_start = now, sent
    end
    local wait = paced_delay * scale
    local whole = math.floor(wait)
    if math.random() < wait - whole then whole = whole + 1 end
    return whole
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format(
    "WRK_RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p90_us=%d p99_us=%d p999_us=%d max_us=%d non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max,
    errors.status, errors.connect, errors.read, errors.write, errors.timeout))
end
