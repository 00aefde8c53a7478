#!/usr/bin/env bash
# bench/scale.sh JOBRUN — memory per slice, and slices without a declared size (issue 20):
#   (a) apply of 100,000 × 1 KiB slices (sha256, 16 at once) from nginx on loopback into tmpfs,
#       against curl --parallel over the same URLs, and apply of their first 10,000 (what a
#       slice costs is the difference of the peak RSS, over 90,000 slices); then the CPU of
#       putting a file in place both ways (bench/commit_cost.c);
#   (b) plan of 1,000,000 slices (bench/gen_manifest.py plan) on an empty output folder;
#   (c) 45 package-like files (7 KiB to 79 MiB, 332 MiB) with sizes and by 'slices_from' (none).
#
#   make bench-scale                     # builds the release binary, then runs this
#   bash bench/scale.sh .build/release/jobrun
#
# Inputs are generated once into $BENCH_SCALE_DIR (default /tmp/jobrun-bench-scale) and kept;
# every run writes into a folder of its own in a new folder under $BENCH_SCALE_OUT (default
# /dev/shm), removed after each row and at exit, so no run's time includes a removal.
# "Other load" includes the loopback nginx's work, so a row is not measured again for it.
# Needs the shared harness's nginx (../shared/bench/server.sh, or JOBRUN_SHARED_DIR), curl and
# GNU time. BENCH_RUNS (3) runs per row after one warm-up; PARTS="apply plan packages" for a
# subset. Exit status: 0 all targets pass, 1 a target failed, 2 a command failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
JOBRUN=$(release_binary bench/scale.sh "${1:-}")
REPO=$(cd "$HERE/.." && pwd)
WORK=${BENCH_SCALE_DIR:-/tmp/jobrun-bench-scale}
OUT_BASE=${BENCH_SCALE_OUT:-/dev/shm}
PARTS=${PARTS:-"apply plan packages"}
SHARED=${JOBRUN_SHARED_DIR:-$REPO/../shared}/bench
[ -x "$SHARED/server.sh" ] || { echo "bench/scale.sh: no server.sh in $SHARED (set JOBRUN_SHARED_DIR to the folder that holds bench/)" >&2; exit 2; }
NOISY_RETRIES=${NOISY_RETRIES:-0}
need_gnu_time
command -v curl >/dev/null || die "curl is needed (the comparison of (a))"
mkdir -p "$WORK" "$OUT_BASE"
OUT=$(mktemp -d -p "$OUT_BASE" jobrun-bench-scale.XXXXXX)
trap 'bash "$SHARED/server.sh" stop >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
: >"$WORK/results.tsv"
BASE=http://127.0.0.1:8088

has() { [[ " $PARTS " == *" $1 "* ]]; }

# ---- inputs (kept between runs) ----
if has apply; then
    echo "generating 100,000 files of 1 KiB (kept in $WORK) ..."
    python3 "$HERE/gen_scale.py" slices "$WORK" 100000 1024 "$BASE" 10000
fi
if has packages; then
    echo "generating 45 package-like files (kept in $WORK) ..."
    python3 "$HERE/gen_scale.py" packages "$WORK" "$BASE" >/dev/null
fi
if has plan; then
    gen_sum=$(sha256sum "$HERE/gen_manifest.py" | cut -c1-16)
    if [ ! -s "$WORK/plan-1000000.yaml" ] || [ "$(cat "$WORK/plan-1000000.yaml.stamp" 2>/dev/null)" != "$gen_sum" ]; then
        echo "generating a manifest of 1,000,000 slices ..."
        python3 "$HERE/gen_manifest.py" plan 1000000 "$WORK/plan-1000000.yaml"
        echo "$gen_sum" >"$WORK/plan-1000000.yaml.stamp"
    fi
fi
mkdir -p "$WORK/site"
bash "$SHARED/server.sh" stop >/dev/null 2>&1 || true
bash "$SHARED/server.sh" start "$WORK/site" >/dev/null

banner "jobrun scale benchmark" "; runs per row: $BENCH_RUNS (+1 warm-up)"
cmdfail=0
declare -A W R C
row() { # NAME CMD... — every run in a new empty folder
    local name=$1; shift
    printf '  measuring %-16s ... ' "$name"
    mkdir -p "$OUT/$name"
    measure "$name" "$BENCH_RUNS" 1 sh -c 'cd "$(mktemp -d -p "$0")" && exec "$@"' "$OUT/$name" "$@"
    rm -rf "${OUT:?}/$name"
    [ "$M_FAIL" = 0 ] || cmdfail=1
    W[$name]=$M_WALL R[$name]=$M_RSS C[$name]=$M_CPU
    printf '%s s (%s–%s), %s CPU-s, %s MiB\n' "$M_WALL" "$M_MIN" "$M_MAX" "$M_CPU" "$(mib "$M_RSS")"
}

if has apply; then
    echo "(a) 100,000 slices of 1 KiB, sha256 each, 16 at once, HTTP/1.1 into tmpfs"
    row apply-100000 "$JOBRUN" apply "$WORK/apply-100000.yaml" --output . -q
    row apply-10000 "$JOBRUN" apply "$WORK/apply-10000.yaml" --output . -q
    row curl-100000 curl --parallel --parallel-max 16 --create-dirs -sS -K "$WORK/curl-100000.cfg"
    perslice=$(calc "%.0f" "(${R[apply-100000]} - ${R[apply-10000]}) * 1024 / 90000")
    echo "  files/s: jobrun $(calc "%.0f" "100000 / ${W[apply-100000]}"), curl $(calc "%.0f" "100000 / ${W[curl-100000]}");" \
         "peak RSS per slice: $perslice bytes"
    echo "  CPU per file: jobrun $(calc "%.0f" "${C[apply-100000]} * 10")" "µs, curl $(calc "%.0f" "${C[curl-100000]} * 10") µs (nginx's not included)"
    # The floor under the difference: what an atomic commit costs on this file system over
    # writing the final name directly, as curl does.
    compile_c "$HERE/commit_cost.c" "$BENCH_BIN/commit_cost"
    read -r in_place commit < <("$BENCH_BIN/commit_cost" "$OUT" 100000)
    echo "  putting a 1 KiB file in place, CPU: $in_place µs writing its name directly, $commit µs as jobrun commits it (temporary name, rename, look; bench/commit_cost.c)"
    target "apply 100,000 slices: peak RSS < 64 MiB" "${R[apply-100000]} < 65536" "$(mib "${R[apply-100000]}") MiB"
    target "apply 100,000 slices: files/s ≥ curl --parallel's" "${W[apply-100000]} <= ${W[curl-100000]}" \
        "$(calc "%.2f" "${W[curl-100000]} / ${W[apply-100000]}")× curl (${W[apply-100000]} s vs ${W[curl-100000]} s)"
    echo
fi
if has plan; then
    echo "(b) plan of 1,000,000 slices (500 a resource), empty output folder"
    row plan-1000000 "$JOBRUN" plan "$WORK/plan-1000000.yaml" --output .
    target "plan 1,000,000 slices < 5 s" "${W[plan-1000000]} < 5" "${W[plan-1000000]} s"
    target "plan 1,000,000 slices: peak RSS < 512 MiB" "${R[plan-1000000]} < 524288" "$(mib "${R[plan-1000000]}") MiB"
    echo
fi
if has packages; then
    echo "(c) 45 files of 7 KiB to 79 MiB, 332 MiB, 8 at once: sizes declared, and by 'slices_from' (no sizes)"
    row sized "$JOBRUN" apply "$WORK/sized.yaml" --output . -q
    row unsized "$JOBRUN" apply "$WORK/unsized.yaml" --output . -q
    target "unsized slices not slower than sized (≤ 1.10×)" "${W[unsized]} <= 1.10 * ${W[sized]}" \
        "$(calc "%.2f" "${W[unsized]} / ${W[sized]}")× (${W[unsized]} s vs ${W[sized]} s)"
    echo
fi
finish "$cmdfail"
