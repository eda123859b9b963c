-- wrk script: POST the JSON body in BENCH_BODY to the URL with a bearer token (BENCH_TOKEN).
-- The same request every time (a chat completion has no id to vary). Prints one JSON summary
-- line at the end (latencies in microseconds), as post.lua does.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("BENCH_TOKEN") or "alice-dev-token")
wrk.body = os.getenv("BENCH_BODY")

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
