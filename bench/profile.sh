#!/usr/bin/env bash
# Where a call's CPU goes: builds the mock in release mode with frame pointers and line tables
# (into target/bench-profile, so it never replaces the shipped build) and samples it under the
# bench's load with perf. From anywhere:
#
#   bench/profile.sh [cpu_profile.py options]     e.g. bench/profile.sh --dur 10 --top 40
#
# Needs perf (linux-perf) and wrk (installed with apt-get when missing). See bench/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v perf >/dev/null || { echo "perf is needed (apt-get install linux-perf)" >&2; exit 2; }
if ! command -v wrk >/dev/null; then
    echo "installing wrk (apt-get)" >&2
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
CARGO_TARGET_DIR="$ROOT/target/bench-profile" CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    RUSTFLAGS="-C force-frame-pointers=yes" \
    cargo build --quiet --release --locked -p mock-server --manifest-path "$ROOT/Cargo.toml"
exec python3 "$ROOT/bench/cpu_profile.py" --mock "$ROOT/target/bench-profile/release/mock-server" "$@"
