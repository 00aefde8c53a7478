#!/usr/bin/env bash
# bench/wan.sh [JOBRUN] — `jobrun apply` and its peers over an emulated WAN: the shared harness's
# delay proxies (../shared/bench/wan.sh) between the tools and a private nginx add real round
# trips, TLS 1.3 and HTTP/2, and the tables give each tool's time against the best peer and the
# physical floor, with what went over the wire (connections, requests in flight).
#
#   make bench-wan
#   bash bench/wan.sh [PATH-TO-RELEASE-JOBRUN]
#
# The runs (each tool given 16 requests at once: jobrun --concurrency 16 --per-host 16):
#   1. RTT 40 ms: sets many:2000 (2,000 × 16 KiB) and seed (600 × 64 KiB);
#   2. RTT 80 ms with a 200 Mbit/s cap per direction: set seed, whose bytes take 1.57 s at that rate.
# Environment: RUNS (3), CONC (16), ONLY (a comma list of tools; default all), JOBRUN_SHARED_DIR
# (../shared, relative to the repository). Needs hyperfine, wget2, aria2, rclone, nginx-light,
# GNU time (see ../shared/bench/README.md); NO_INSTALL=1 does not install what is missing.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${JOBRUN_SHARED_DIR:-$REPO/../shared}/bench
if [ ! -x "$SHARED/wan.sh" ]; then
    echo "bench/wan.sh: the shared benchmark harness is missing: no wan.sh in $SHARED" >&2
    echo "  (set JOBRUN_SHARED_DIR to the folder that holds bench/; default: $REPO/../shared)" >&2
    exit 1
fi
JOBRUN=${1:-${JOBRUN:-}}
[ -n "$JOBRUN" ] || { echo "bench/wan.sh: give the release jobrun (make bench-wan builds it)" >&2; exit 2; }
JOBRUN=$(cd "$(dirname "$JOBRUN")" && pwd)/$(basename "$JOBRUN")
missing=()
for tool in hyperfine wget2 aria2c rclone nginx /usr/bin/time; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "${NO_INSTALL:-0}" = 1 ] || ! command -v apt-get >/dev/null; then
        echo "bench/wan.sh: missing ${missing[*]} (see $SHARED/README.md, Prerequisites)" >&2
        exit 1
    fi
    apt-get install -y -qq hyperfine wget2 aria2 rclone nginx-light time >/dev/null
fi
export JOBRUN
only=()
[ -n "${ONLY:-}" ] && only=(--only "$ONLY")
RTT_MS=40 bash "$SHARED/wan.sh" --sets "many:2000 seed" --conc "${CONC:-16}" --runs "${RUNS:-3}" "${only[@]}"
RTT_MS=80 RATE_MBIT=200 bash "$SHARED/wan.sh" --sets "seed" --conc "${CONC:-16}" --runs "${RUNS:-3}" "${only[@]}"
