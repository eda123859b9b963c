#!/usr/bin/env bash
# Instructions per `models_list` call of the real server under load, counted by valgrind's
# callgrind: the figure to compare two commits by, since it hardly moves with other work on the
# machine (req/s and CPU time move by up to 30 % between runs on a shared VM). It counts user
# space only (hyper, axum, tokio and the mock; not the kernel's TCP work). From anywhere:
#
#   bench/instructions.sh [SECONDS]      default 10; prints the count and keeps the profile
#
# It builds the mock with line tables into target/bench-profile (as profile.sh does), starts it
# under callgrind, warms it up with wrk for 3 s, zeroes the counters, loads it for SECONDS with
# 32 connections, and divides the instructions by the calls wrk saw answered. Under callgrind
# the server runs about 50 times slower, so a run serves a few thousand calls. Needs valgrind
# and wrk (installed with apt-get when missing). See bench/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_LOADED="${1:-10}"
for tool in valgrind wrk; do
    if ! command -v "$tool" >/dev/null; then
        echo "installing $tool (apt-get)" >&2
        apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null
    fi
done
CARGO_TARGET_DIR="$ROOT/target/bench-profile" CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    RUSTFLAGS="-C force-frame-pointers=yes" \
    cargo build --quiet --release --locked -p mock-server --manifest-path "$ROOT/Cargo.toml"
BIN="$ROOT/target/bench-profile/release/mock-server"
WORK="$(mktemp -d /tmp/mock-instructions-XXXXXX)"
PORT=$((20000 + RANDOM % 20000))
URL="http://127.0.0.1:$PORT/rest/computer/mcp"
HEADERS=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
    -H 'Authorization: Bearer alice-dev-token')

valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
    "$BIN" --listen "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill -9 $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break
    sleep 0.2
done
SESSION=$(curl -s -D - -o /dev/null "${HEADERS[@]}" "$URL" -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
export BENCH_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"models_list","arguments":{}}}'
export BENCH_TOKEN=alice-dev-token BENCH_SESSION="$SESSION" BENCH_PROTOCOL=2025-11-25
wrk -t1 -c32 -d3s -s "$ROOT/bench/post.lua" "$URL" >/dev/null
callgrind_control -z "$SERVER" >/dev/null 2>&1
wrk -t1 -c32 -d"${SECONDS_LOADED}s" -s "$ROOT/bench/post.lua" "$URL" >"$WORK/wrk.txt"
callgrind_control -d "$SERVER" >/dev/null 2>&1
sleep 1
CALLS=$(grep -o '"requests":[0-9]*' "$WORK/wrk.txt" | cut -d: -f2)
PROFILE=$(ls -t "$WORK"/callgrind.out.* | head -1)
INSTRUCTIONS=$(awk '/^summary:/{print $2; exit}' "$PROFILE")
echo "$((INSTRUCTIONS / CALLS)) instructions per call ($CALLS calls under callgrind)"
echo "profile: $PROFILE (callgrind_annotate --inclusive=yes $PROFILE | head -80)"
