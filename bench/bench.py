#!/usr/bin/env python3
"""The mock against a canned-bytes axum handler, side by side in one run (standard library only).

    bench.py --mock PATH --ceiling PATH [--conc 32] [--dur 10] [--rounds 3] [--warm 3]
             [--calls 1000000] [--startup-runs 5] [--no-pin] [--check]

Measures `tools/call models_list` (authenticated, journal on, as shipped) and prints four figures
with the targets they are held to:

  throughput   mock req/s over the ceiling's req/s, medians of ROUNDS rounds in A B A B order
  p99          the mock's 99th-percentile latency at CONC keep-alive connections (median of rounds)
  memory       the mock's RSS after CALLS calls minus its RSS when idle after the handshake
  ready        exec to the first good `initialize` answer (median of STARTUP_RUNS)

and, without a target, each server's CPU time per call in the rounds (user + system, from
/proc/PID/stat): on a machine where other work competes for the cores, the ratio of CPU per call
moves far less than the ratio of req/s.

The ceiling serves the very bytes the mock answered (captured once), so the ratio is the cost of
the mock's work, not of a different answer. Pinned by default: each server on CPU 1, wrk (one
thread) on CPU 0, so generator and server never share a core. Only 127.0.0.1 is used; every
process started is stopped at the end. `--check` exits 1 when a figure misses its target.
"""

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
MCP_PATH = "/rest/computer/mcp"
TOKEN = "alice-dev-token"
VERSION = "2025-11-25"
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {},
                   "clientInfo": {"name": "mock-bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "models_list", "arguments": {}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "Authorization": f"Bearer {TOKEN}"}

TARGET_RATIO = 0.5
TARGET_P99_MS = 2.0
TARGET_RSS_GROWTH_MIB = 64.0
TARGET_READY_MS = 10.0


class Failed(Exception):
    """A server did not start or did not answer as expected: nothing is measured."""


def pinned(cpu, argv, pin):
    return (["taskset", "-c", str(cpu)] if pin else []) + argv


def start(argv):
    """Starts a server whose first stdout line ends in its URL; returns (process, base URL)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if "http://" not in line:
        proc.kill()
        raise Failed(f"{argv[-1]}: first line was {line!r}, not a URL")
    return proc, line[line.index("http://"):]


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def post(base, body, headers):
    """One POST to the MCP URL: (status, headers, body bytes)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("POST", MCP_PATH, json.dumps(body), headers)
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


def jsonrpc_result(status, headers, body, want_id):
    """The result of the JSON-RPC answer with `want_id` (plain JSON or SSE), else Failed."""
    if status != 200:
        raise Failed(f"HTTP {status}: {body[:200]!r}")
    text = body.decode()
    if headers.get("content-type", "").startswith("text/event-stream"):
        candidates = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    else:
        candidates = [text]
    for candidate in candidates:
        try:
            message = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == want_id:
            if not isinstance(message.get("result"), dict):
                raise Failed(f"not a result: {candidate[:300]}")
            return message["result"]
    raise Failed(f"no JSON-RPC answer with id {want_id} in {text[:300]!r}")


def handshake(base):
    """initialize + notifications/initialized; returns the session headers."""
    status, headers, body = post(base, INIT, HEADERS)
    result = jsonrpc_result(status, headers, body, 0)
    session = {"MCP-Protocol-Version": result.get("protocolVersion", VERSION)}
    if "mcp-session-id" in headers:
        session["Mcp-Session-Id"] = headers["mcp-session-id"]
    status, _, _ = post(base, INITIALIZED, {**HEADERS, **session})
    if status not in (200, 202, 204):
        raise Failed(f"notifications/initialized got HTTP {status}")
    return session


def models_list_answer(base, session):
    """One checked `models_list` call: (content type, body bytes)."""
    status, headers, body = post(base, CALL, {**HEADERS, **session})
    result = jsonrpc_result(status, headers, body, 1)
    models = json.loads(result["content"][0]["text"])
    if result.get("isError") or models != result.get("structuredContent") or "models" not in models:
        raise Failed(f"not a models_list result: {body[:300]!r}")
    return headers.get("content-type", "application/json"), body


def ready_ms(argv, runs):
    """Median over `runs` execs of the time from exec to the first good `initialize` answer."""
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        proc, base = start(argv)
        try:
            while True:
                try:
                    status, headers, body = post(base, INIT, HEADERS)
                    jsonrpc_result(status, headers, body, 0)
                    break
                except (OSError, Failed):
                    time.sleep(0.0005)
            times.append((time.perf_counter() - begin) * 1000)
        finally:
            stop(proc)
    return statistics.median(times), times


def wrk(base, session, seconds, args):
    """One wrk run against the MCP URL; its summary (requests, errors, latencies in µs)."""
    env = {**os.environ, "BENCH_BODY": json.dumps(CALL, separators=(",", ":")),
           "BENCH_TOKEN": TOKEN, "BENCH_SESSION": session.get("Mcp-Session-Id", ""),
           "BENCH_PROTOCOL": session.get("MCP-Protocol-Version", "")}
    threads = "1" if args.pin else "2"
    argv = pinned(0, ["wrk", f"-t{threads}", f"-c{args.conc}", f"-d{seconds}s", "--timeout", "5s",
                      "-s", os.path.join(HERE, "post.lua"), base + MCP_PATH], args.pin)
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("BENCH_JSON "):
            summary = json.loads(line[len("BENCH_JSON "):])
            summary["rps"] = summary["requests"] / (summary["duration_us"] / 1e6)
            return summary
    raise Failed(f"wrk printed no summary: {out[-300:]}")


def cpu_seconds(proc):
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{proc.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(proc):
    with open(f"/proc/{proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise Failed("no VmRSS")


def verdict(met):
    return "met" if met else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--ceiling", required=True)
    parser.add_argument("--conc", type=int, default=32)
    parser.add_argument("--dur", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    args.pin = args.pin and (os.cpu_count() or 1) >= 2

    mock_argv = pinned(1, [args.mock, "--listen", "127.0.0.1:0"], args.pin)
    print(f"== ready: exec to the first initialize answer, median of {args.startup_runs}", flush=True)
    ready, ready_runs = ready_ms(mock_argv, args.startup_runs)
    print(f"   {ready:.1f} ms (runs: {', '.join(f'{t:.1f}' for t in ready_runs)})", flush=True)

    procs = []
    try:
        mock, mock_url = start(mock_argv)
        procs.append(mock)
        session = handshake(mock_url)
        content_type, answer = models_list_answer(mock_url, session)
        rss_idle = rss_mib(mock)
        with tempfile.NamedTemporaryFile(prefix="mock-answer-", delete=False) as canned:
            canned.write(answer)
        ceiling, ceiling_url = start(pinned(1, [args.ceiling, canned.name, content_type], args.pin))
        procs.append(ceiling)
        print(f"== mock {mock_url} ({len(answer)} body bytes, {content_type}); ceiling {ceiling_url}",
              flush=True)

        calls = 0
        for name, url, sess in (("mock", mock_url, session), ("ceiling", ceiling_url, {})):
            summary = wrk(url, sess, args.warm, args)
            calls += summary["requests"] if name == "mock" else 0
        rounds = {"mock": [], "ceiling": []}
        servers = {"mock": mock, "ceiling": ceiling}
        for number in range(1, args.rounds + 1):
            for name, url, sess in (("mock", mock_url, session), ("ceiling", ceiling_url, {})):
                cpu_before = cpu_seconds(servers[name])
                summary = wrk(url, sess, args.dur, args)
                summary["cpu_us"] = ((cpu_seconds(servers[name]) - cpu_before) * 1e6
                                     / max(summary["requests"], 1))
                if summary["errors"]:
                    raise Failed(f"{name}: {summary['errors']} wrk errors in round {number}")
                rounds[name].append(summary)
                calls += summary["requests"] if name == "mock" else 0
                print(f"   round {number} {name:8} {summary['rps']:>10,.0f} req/s  "
                      f"p50 {summary['p50_us'] / 1000:.2f} ms  p99 {summary['p99_us'] / 1000:.2f} ms  "
                      f"CPU {summary['cpu_us']:.0f} us/call", flush=True)
        print(f"== memory: loading the mock until it has served {args.calls:,} calls", flush=True)
        while calls < args.calls:
            summary = wrk(mock_url, session, args.dur, args)
            if summary["errors"]:
                raise Failed(f"mock: {summary['errors']} wrk errors while loading")
            calls += summary["requests"]
        rss_after = rss_mib(mock)
        models_list_answer(mock_url, session)  # still answering correctly after the load
    except (Failed, subprocess.CalledProcessError, OSError) as error:
        print(f"NOT MEASURED: {error}", file=sys.stderr)
        return 2
    finally:
        for proc in procs:
            stop(proc)

    mock_rps = statistics.median(r["rps"] for r in rounds["mock"])
    ceiling_rps = statistics.median(r["rps"] for r in rounds["ceiling"])
    ratio = mock_rps / ceiling_rps
    p99 = statistics.median(r["p99_us"] for r in rounds["mock"]) / 1000
    growth = rss_after - rss_idle
    figures = [
        ("throughput", f"{ratio:.2f}x the ceiling ({mock_rps:,.0f} / {ceiling_rps:,.0f} req/s)",
         f">= {TARGET_RATIO}x", ratio >= TARGET_RATIO),
        ("p99", f"{p99:.2f} ms at {args.conc} connections", f"< {TARGET_P99_MS} ms",
         p99 < TARGET_P99_MS),
        ("memory", f"+{growth:.1f} MiB after {calls:,} calls ({rss_idle:.1f} -> {rss_after:.1f} MiB)",
         f"<= +{TARGET_RSS_GROWTH_MIB:.0f} MiB", growth <= TARGET_RSS_GROWTH_MIB),
        ("ready", f"{ready:.1f} ms", f"<= {TARGET_READY_MS:.0f} ms", ready <= TARGET_READY_MS),
    ]
    print()
    print(f"| figure | measured | target | |")
    print(f"|---|---|---|---|")
    for name, measured, target, met in figures:
        print(f"| {name} | {measured} | {target} | {verdict(met)} |")
    mock_cpu = statistics.median(r["cpu_us"] for r in rounds["mock"])
    ceiling_cpu = statistics.median(r["cpu_us"] for r in rounds["ceiling"])
    print(f"\nCPU per call (medians of the rounds): mock {mock_cpu:.0f} us, ceiling "
          f"{ceiling_cpu:.0f} us ({ceiling_cpu / mock_cpu:.2f}x)")
    print(f"{'pinned: servers on CPU 1, wrk on CPU 0' if args.pin else 'unpinned'}; "
          f"wrk {args.conc} connections, {args.rounds} rounds of {args.dur} s after {args.warm} s warm-up")
    return 1 if args.check and not all(met for *_, met in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
