-- wrk script: POST the JSON-RPC body in BENCH_BODY with the MCP headers from the environment.
-- Requests in flight on one MCP session must not share a JSON-RPC id, so each thread cycles
-- through RING prebuilt requests with distinct ids (threads use disjoint ranges); prebuilding keeps
-- the generator's cost per request near that of a fixed body. Prints one JSON summary line at the
-- end (latencies in microseconds).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("BENCH_TOKEN") or "alice-dev-token")
local sid = os.getenv("BENCH_SESSION") or ""
if sid ~= "" then wrk.headers["Mcp-Session-Id"] = sid end
local pv = os.getenv("BENCH_PROTOCOL") or ""
if pv ~= "" then wrk.headers["MCP-Protocol-Version"] = pv end

local head, tail = os.getenv("BENCH_BODY"):match('^(.-"id":)1(,.*)$')
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("first_id", threads * 1000000000)
end

local RING, ring, i = 32768, {}, 0
function init(args)
  for k = 1, RING do ring[k] = wrk.format(nil, nil, nil, head .. (first_id + k) .. tail) end
end

function request()
  i = i % RING + 1
  return ring[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
