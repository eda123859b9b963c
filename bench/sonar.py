#!/usr/bin/env python3
"""Sonar chat completions: the mock against the canned-bytes ceiling in one run (stdlib only).

    sonar.py --mock PATH --ceiling PATH [--conc 32] [--dur 10] [--rounds 3] [--warm 3]
             [--streams 200] [--no-pin]

Two figures, each a ratio against the ceiling (`bench/ceiling/`) answering the very bytes the
mock answered, measured in the same run:

  throughput    `POST /chat/completions` (whole answers) req/s, mock over ceiling, medians of
                ROUNDS wrk rounds in A B A B order, with each server's CPU time per call
  first chunk   a streamed completion's first `data:` line, from sending the request to reading
                it, median and p90 of STREAMS sequential requests; the ceiling sends the mock's
                whole stream as one body, so its figure is the time to the first byte

The mock runs as shipped (release build, journal on, bearer authentication) with a world whose
`alice` has credits enough for the run and the scenario `bench-instant` (`first_token` and
`chunk_interval` "0s": the answer is ready at once, so what is measured is the mock's own work,
not its simulated model). `--time-scale 1000000` keeps the per-account rate limits (50 sonar
requests a minute of virtual time) out of the way. Pinned as bench.py is: each server on CPU 1,
wrk (one thread) and the stream client on CPU 0. Only 127.0.0.1 is used; every process started
is stopped at the end.
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

from bench import Failed, cpu_seconds, pinned, start, stop

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATH = "/chat/completions"
TOKEN = "alice-dev-token"
SCENARIO = {
    "name": "bench-instant",
    "description": "A cited answer ready at once: the benchmark measures the mock, not its model.",
    "sonar": {
        "answer": "Solar power keeps getting cheaper [1], and storage is catching up [2].",
        "first_token": "0s",
        "chunk_interval": "0s",
    },
}
REQUEST = {"model": "sonar", "messages": [{"role": "user", "content": "#bench-instant What is new in solar power?"}]}


def world_with_credits(path):
    """The built-in world with `alice` given credits for far more calls than a run makes."""
    with open(os.path.join(ROOT, "fixtures", "world.json")) as f:
        world = json.load(f)
    for account in world["accounts"]:
        if account["id"] == "alice":
            account["credits"] = 1_000_000_000_000
    with open(path, "w") as f:
        json.dump(world, f)


def request(base, body, read_first_line=False):
    """One POST to /chat/completions: (status, content type, seconds to the first data line, body)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        begin = time.perf_counter()
        conn.request("POST", PATH, json.dumps(body),
                     {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
        answer = conn.getresponse()
        first = None
        if read_first_line:
            line = answer.readline()
            while line and not line.startswith(b"data:"):
                line = answer.readline()
            first = time.perf_counter() - begin
            rest = line + answer.read()
        else:
            rest = answer.read()
        return answer.status, answer.getheader("content-type", ""), first, rest
    finally:
        conn.close()


def checked_answer(base, stream):
    """The mock's answer to REQUEST, checked: (content type, body bytes)."""
    status, content_type, _, body = request(base, {**REQUEST, "stream": stream})
    if status != 200:
        raise Failed(f"HTTP {status}: {body[:300]!r}")
    if stream:
        chunks = [json.loads(l[5:]) for l in body.decode().splitlines() if l.startswith("data:")]
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
        if not chunks or text != chunks[-1]["choices"][0]["message"]["content"] or "[1]" not in text:
            raise Failed(f"not a streamed completion: {body[:300]!r}")
    else:
        answer = json.loads(body)
        if "[1]" not in answer["choices"][0]["message"]["content"] or not answer.get("citations"):
            raise Failed(f"not a cited completion: {body[:300]!r}")
    return content_type, body


def wrk(base, seconds, args):
    """One wrk run against /chat/completions; its summary (requests, errors, latencies in µs)."""
    env = {**os.environ, "BENCH_BODY": json.dumps(REQUEST, separators=(",", ":")), "BENCH_TOKEN": TOKEN}
    threads = "1" if args.pin else "2"
    argv = pinned(0, ["wrk", f"-t{threads}", f"-c{args.conc}", f"-d{seconds}s", "--timeout", "5s",
                      "-s", os.path.join(HERE, "post_chat.lua"), base + PATH], args.pin)
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("BENCH_JSON "):
            summary = json.loads(line[len("BENCH_JSON "):])
            summary["rps"] = summary["requests"] / (summary["duration_us"] / 1e6)
            return summary
    raise Failed(f"wrk printed no summary: {out[-300:]}")


def first_chunks(base, runs):
    """Seconds to the first `data:` line of `runs` sequential streamed requests."""
    times = []
    for _ in range(runs):
        status, _, first, body = request(base, {**REQUEST, "stream": True}, read_first_line=True)
        if status != 200 or first is None:
            raise Failed(f"stream: HTTP {status}: {body[:200]!r}")
        times.append(first)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--ceiling", required=True)
    parser.add_argument("--conc", type=int, default=32)
    parser.add_argument("--dur", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    args = parser.parse_args()
    args.pin = args.pin and (os.cpu_count() or 1) >= 2
    if args.pin:
        os.sched_setaffinity(0, {0})  # the stream client beside wrk, off the servers' CPU

    procs = []
    scratch = tempfile.mkdtemp(prefix="sonar-bench-")
    try:
        world, fixtures = os.path.join(scratch, "world.json"), os.path.join(scratch, "bench-instant.json")
        world_with_credits(world)
        with open(fixtures, "w") as f:
            json.dump(SCENARIO, f)
        mock, mock_url = start(pinned(1, [args.mock, "--listen", "127.0.0.1:0", "--time-scale", "1000000",
                                          "--world", world, "--fixtures", fixtures], args.pin))
        procs.append(mock)
        whole_type, whole = checked_answer(mock_url, stream=False)
        stream_type, stream = checked_answer(mock_url, stream=True)
        ceilings = {}
        for name, body, content_type in (("whole", whole, whole_type), ("stream", stream, stream_type)):
            canned = os.path.join(scratch, f"{name}.body")
            with open(canned, "wb") as f:
                f.write(body)
            proc, url = start(pinned(1, [args.ceiling, canned, content_type], args.pin))
            procs.append(proc)
            ceilings[name] = (proc, url)
        print(f"== mock {mock_url}: a completion of {len(whole)} bytes, a stream of {len(stream)} bytes "
              f"in {stream.count(b'data:')} chunks; ceilings {ceilings['whole'][1]}, {ceilings['stream'][1]}",
              flush=True)

        targets = {"mock": (mock, mock_url), "ceiling": ceilings["whole"]}
        for _, url in targets.values():
            wrk(url, args.warm, args)
        rounds = {"mock": [], "ceiling": []}
        for number in range(1, args.rounds + 1):
            for name, (proc, url) in targets.items():
                cpu_before = cpu_seconds(proc)
                summary = wrk(url, args.dur, args)
                summary["cpu_us"] = (cpu_seconds(proc) - cpu_before) * 1e6 / max(summary["requests"], 1)
                if summary["errors"]:
                    raise Failed(f"{name}: {summary['errors']} wrk errors (non-2xx or socket) in round {number}")
                rounds[name].append(summary)
                print(f"   round {number} {name:8} {summary['rps']:>10,.0f} req/s  "
                      f"p50 {summary['p50_us'] / 1000:.2f} ms  p99 {summary['p99_us'] / 1000:.2f} ms  "
                      f"CPU {summary['cpu_us']:.0f} us/call", flush=True)
        checked_answer(mock_url, stream=False)  # still answering correctly after the load

        print(f"== first chunk: {args.streams} sequential streamed completions each", flush=True)
        firsts = {"mock": first_chunks(mock_url, args.streams),
                  "ceiling": first_chunks(ceilings["stream"][1], args.streams)}
    except (Failed, subprocess.CalledProcessError, OSError, ValueError, KeyError) as error:
        print(f"NOT MEASURED: {error}", file=sys.stderr)
        return 2
    finally:
        for proc in procs:
            stop(proc)

    mock_rps = statistics.median(r["rps"] for r in rounds["mock"])
    ceiling_rps = statistics.median(r["rps"] for r in rounds["ceiling"])
    mock_cpu = statistics.median(r["cpu_us"] for r in rounds["mock"])
    ceiling_cpu = statistics.median(r["cpu_us"] for r in rounds["ceiling"])
    p99 = statistics.median(r["p99_us"] for r in rounds["mock"]) / 1000

    def ms(times, q):
        return statistics.quantiles(times, n=10)[q - 1] * 1000 if q != 5 else statistics.median(times) * 1000

    print()
    print("| figure | mock | ceiling | mock / ceiling |")
    print("|---|---|---|---|")
    print(f"| chat completions req/s | {mock_rps:,.0f} | {ceiling_rps:,.0f} | {mock_rps / ceiling_rps:.2f}x |")
    print(f"| CPU per call | {mock_cpu:.0f} us | {ceiling_cpu:.0f} us | {mock_cpu / ceiling_cpu:.2f}x |")
    print(f"| p99 at {args.conc} connections | {p99:.2f} ms | "
          f"{statistics.median(r['p99_us'] for r in rounds['ceiling']) / 1000:.2f} ms | |")
    for label, q in (("first chunk, median", 5), ("first chunk, p90", 9)):
        mock_ms, ceiling_ms = ms(firsts["mock"], q), ms(firsts["ceiling"], q)
        print(f"| {label} | {mock_ms:.2f} ms | {ceiling_ms:.2f} ms | {mock_ms / ceiling_ms:.2f}x |")
    print(f"\n{'pinned: servers on CPU 1, wrk and the stream client on CPU 0' if args.pin else 'unpinned'}; "
          f"wrk {args.conc} connections, {args.rounds} rounds of {args.dur} s after {args.warm} s warm-up; "
          f"{args.streams} streams each, one at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
