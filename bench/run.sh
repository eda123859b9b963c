#!/usr/bin/env bash
# The benchmark: the mock (release build, as shipped) against a canned-bytes axum handler in one
# run, pinned, with the figures issue targets are held to. From anywhere:
#
#   bench/run.sh [bench.py options]     e.g. bench/run.sh --dur 5 --calls 200000
#   bench/run.sh sonar [sonar.py options]   Sonar chat completions: throughput and first chunk
#   bench/run.sh growth [growth.py options] memory after 10,000 threads, 1,000 runs, uploads, reset
#
# Installs wrk with apt-get when it is missing; builds both servers in release mode (the ceiling
# into target/bench-ceiling). See bench/README.md for what is measured and the last figures.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" != growth ]] && ! command -v wrk >/dev/null; then
    echo "installing wrk (apt-get)" >&2
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
command -v taskset >/dev/null || { echo "taskset (util-linux) is needed to pin the servers" >&2; exit 2; }
cargo build --quiet --release --locked -p mock-server --manifest-path "$ROOT/Cargo.toml"
if [[ "${1:-}" == growth ]]; then
    shift
    exec python3 "$ROOT/bench/growth.py" --mock "$ROOT/target/release/mock-server" "$@"
fi
CARGO_TARGET_DIR="$ROOT/target/bench-ceiling" \
    cargo build --quiet --release --locked --manifest-path "$ROOT/bench/ceiling/Cargo.toml"
script="$ROOT/bench/bench.py"
if [[ "${1:-}" == sonar ]]; then
    script="$ROOT/bench/sonar.py"
    shift
fi
exec python3 "$script" --mock "$ROOT/target/release/mock-server" \
    --ceiling "$ROOT/target/bench-ceiling/release/ceiling" "$@"
