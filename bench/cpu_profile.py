#!/usr/bin/env python3
"""Where a `models_list` call's CPU goes: the mock under the bench's load, sampled by `perf`.

    cpu_profile.py --mock PATH [--dur 8] [--top 30] [--no-pin]

Starts the mock pinned as bench.py does, loads it with wrk for DUR seconds while `perf record -g`
samples it, then prints two tables from the call stacks (a build with frame pointers gives whole
stacks; bench/profile.sh makes one):

  owner    each sample charged to the innermost mock_server function on its stack, or to
           `serve` when only hyper, axum, tokio or the kernel ran below the connection loop
  below    for the samples charged to `serve`: the innermost hyper/axum/tokio/tower frame, and
           whether the sample itself was in the kernel (K), libc or user space (U)

Shares of samples, unlike req/s, hardly move with what else runs on the machine, so they show
whether a change removed work. Only 127.0.0.1 is used; the mock is stopped at the end.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import bench

LIBRARY = re.compile(r"hyper::|axum::|tower|tokio::|mio::|http::|httparse")


def stacks(data):
    """Each sample's stack, innermost frame first, from `perf script`."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    stack = []
    for line in out.splitlines():
        line = line.strip()
        if line:
            stack.append(line)
        elif stack:
            yield stack
            stack = []
    if stack:
        yield stack


def short(frame):
    """A frame without its address, its library and its closures, cut to a line."""
    frame = re.sub(r"^[0-9a-f]+ ", "", frame)
    frame = re.sub(r"\s*\(.*\)$", "", frame)
    return frame.replace("::{{closure}}", "")[:120]


def attribute(data):
    owners, below, total = collections.Counter(), collections.Counter(), 0
    for stack in stacks(data):
        total += 1
        owner = next((f for f in stack if "mock_server::" in f), None)
        if owner is None or "serve::serve" in owner:
            owners["mock_server::serve::serve (hyper, axum, tokio, kernel)"] += 1
            library = next((f for f in stack if LIBRARY.search(f)), "?")
            place = "K" if "kernel" in stack[0] else ("libc" if "libc" in stack[0] else "U")
            below[(place, short(library))] += 1
        else:
            owners[short(owner)] += 1
    return owners, below, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--dur", type=int, default=8)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    args = parser.parse_args()
    args.pin = args.pin and (os.cpu_count() or 1) >= 2
    args.conc = 32
    mock, url = bench.start(bench.pinned(1, [args.mock, "--listen", "127.0.0.1:0"], args.pin))
    data = os.path.join(tempfile.mkdtemp(prefix="mock-profile-"), "perf.data")
    try:
        session = bench.handshake(url)
        bench.models_list_answer(url, session)
        bench.wrk(url, session, 2, args)  # warm-up: the journal fills to its cap
        recorder = subprocess.Popen(
            ["perf", "record", "-F", "2999", "-g", "-p", str(mock.pid), "-o", data],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        summary = bench.wrk(url, session, args.dur, args)
        recorder.send_signal(2)
        recorder.wait(timeout=30)
    finally:
        bench.stop(mock)
    print(f"== {summary['rps']:,.0f} req/s, p99 {summary['p99_us'] / 1000:.2f} ms while sampled")
    owners, below, total = attribute(data)
    print(f"== owner ({total:,} samples)")
    for owner, count in owners.most_common(args.top):
        print(f"{100 * count / total:6.2f}%  {owner}")
    print("== below serve")
    for (place, frame), count in below.most_common(args.top):
        print(f"{100 * count / total:6.2f}%  {place:4} {frame}")
    print(f"perf data: {data}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
