#!/usr/bin/env bash
# bench/state.sh JOBRUN — what the mirror state (docs/state.md) saves and costs (issue 18,
# "Quick checks → Targets"):
#
#   mirror  an unchanged 100,000-file mirror (100 folders × 1,000 files, sizes uniform in
#           128–512 KiB, the size of a few seconds of video: 32.7 GB; bench/gen_manifest.py
#           mirror, sha256 on every slice), meant to be larger than the machine's memory, as a
#           mirror worth a cron job's quick check is: (a) and (a') read much of it from disk.
#             (a) `jobrun plan M --rehash`   reads and hashes every file, and records each again
#             (a') `jobrun plan M` with the store moved aside: what plan cost before the store
#                 existed (it hashes every file as (a) does, and reads and writes no records)
#             (b) `jobrun plan M`            the quick check: a stat per file against the store
#             (c) `find ROOT -type f -printf '%s %T@\n'`   the stat floor
#             (d) `jobrun plan M --output EMPTY`   the same manifest against an empty folder: what
#                 reading the manifest and planning costs with no file to look at
#           Targets: (a)/(b) ≥ 20 (medians); and "bounded by stat": the quick check's own
#           cost, (b) − (d), at most 2 × (c), each from its fastest run (the difference of two
#           medians of sub-second runs swings with the machine's other load; the fastest run is
#           the least disturbed). (b)/(c) is printed too, but not judged: (b) includes reading
#           a 13 MB manifest, which (d) shows costs more than find's whole walk and which no
#           store can save. Per file, what the quick check does beyond find is one dictionary
#           lookup and a comparison in memory, and once per run a scan of the store; find does
#           one stat through a directory file descriptor, jobrun one by path, on all cores.
#           Twice find's time leaves room for that and is still "the cost of a stat"; a store
#           whose reading costs as much as the stats themselves fails it.
#           The store is made the way a user's would be: by `jobrun apply M` over the mirror,
#           which finds every file in place, hashes it, records it and fetches nothing (the
#           base URLs name a host that does not resolve, so a slice it wanted to fetch would
#           fail the run). One `jobrun plan M` follows it as a warm-up: files whose change time
#           was less than 50 ms older than apply's look at them are hashed again and recorded
#           anew (FileIdentity.isSettled). `jobrun verify --quick M` then has to report
#           "0 proven by hashing", or the benchmark stops.
#   apply   apply set (b) of the apply benchmark (../shared/bench corpus `many`, 10,000 × 16 KiB,
#           served by the shared harness's nginx over HTTP/1.1, concurrency 16) into a fresh
#           folder on tmpfs, timed with `perf stat -e task-clock` (GNU time user+sys without
#           perf), two ways that alternate run by run, so that a slow stretch of the machine is
#           shared: with the store (ROOT/.jobrun holds a copy of the store `jobrun apply` left in
#           a root where it proved one file, as any root has after its first run; the benchmark
#           checks that it then records all 10,000 slices), and without (ROOT/.jobrun made a
#           regular file, so that no store can be opened or created there; jobrun warns when it
#           tries to record). Target: the store adds ≤ 3 % of task-clock (median against
#           median). Before them, untimed: one apply into an empty root, which is to create the
#           store and record all 10,000 slices (a target of its own).
#
#   make bench-state
#   bash bench/state.sh .build/release/jobrun
#   BENCH_PARTS=apply make bench-state
#
# Environment: BENCH_PARTS ("mirror apply"), BENCH_STATE_DIR (/tmp/jobrun-bench-state: the
# mirror, its manifest and the results; it needs the mirror's bytes free plus 10 %),
# BENCH_STATE_FILES (100000), BENCH_STATE_PER_FOLDER (1000), BENCH_STATE_SIZE (131072-524288:
# MIN-MAX bytes, or one size), BENCH_RUNS (3; for (a) and (a')), BENCH_QUICK_RUNS (10; for (b),
# (c) and (d), which take a second or less), BENCH_APPLY_RUNS (11 of each), BENCH_APPLY_DIR
# (/dev/shm/jobrun-bench-state-apply), BENCH_KEEP=1 (keep the mirror: it is deleted on exit
# otherwise), QUIET_WAIT=S, NO_HYPERFINE=1, JOBRUN_SHARED_DIR (../shared).
# Exit status: 0 all targets pass, 1 a target failed, 2 a command failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
JOBRUN=$(release_binary bench/state.sh "${1:-}")
REPO=$(cd "$HERE/.." && pwd)
WORK=${BENCH_STATE_DIR:-/tmp/jobrun-bench-state}
PARTS=${BENCH_PARTS:-"mirror apply"}
FILES=${BENCH_STATE_FILES:-100000}
PER_FOLDER=${BENCH_STATE_PER_FOLDER:-1000}
SIZE=${BENCH_STATE_SIZE:-131072-524288}
QUICK_RUNS=${BENCH_QUICK_RUNS:-10}
APPLY_RUNS=${BENCH_APPLY_RUNS:-11}
APPLY_DIR=${BENCH_APPLY_DIR:-/dev/shm/jobrun-bench-state-apply}
SHARED=${JOBRUN_SHARED_DIR:-$REPO/../shared}/bench
APPLY_CONC=16
SPEEDUP_MIN=20 STAT_BOUND=2 APPLY_OVERHEAD_MAX=3

case $SIZE in
    *-*) MIN_SIZE=${SIZE%-*} MAX_SIZE=${SIZE#*-} ;;
    *) MIN_SIZE=$SIZE MAX_SIZE=$SIZE ;;
esac
for v in FILES PER_FOLDER MIN_SIZE MAX_SIZE QUICK_RUNS APPLY_RUNS BENCH_RUNS; do
    case ${!v} in ''|*[!0-9]*) echo "bench/state.sh: $v must be a whole number, not '${!v}'" >&2; exit 2 ;; esac
done
for p in $PARTS; do case $p in mirror|apply) ;; *) echo "bench/state.sh: unknown part '$p' (mirror apply)" >&2; exit 2 ;; esac; done

PYTHON=$(python3 -c 'import sys; print(sys.executable)')
need_gnu_time
ROOT=$WORK/mirror
MANIFEST=$WORK/mirror.yaml
EMPTY=$WORK/empty-out

cleanup() {
    rm -rf "$APPLY_DIR"
    if [ "$server_started" = 1 ]; then "$SHARED/server.sh" stop >/dev/null || true; fi
    [ -n "${BENCH_KEEP:-}" ] || rm -rf "$ROOT" "$MANIFEST" "$MANIFEST.stamp"
}
server_started=0
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$WORK"
: >"$WORK/results.tsv"

banner "jobrun mirror-state benchmark"
cmdfail=0
TARGET_WIDTH=62
# run_ok NAME CMD... — runs a set-up command, its output in $WORK/NAME.out; stops the benchmark if it fails
run_ok() {
    local name=$1; shift
    if ! "$@" >"$WORK/$name.out" 2>&1; then
        echo "bench: $name failed: $*" >&2; tail -n 20 "$WORK/$name.out" >&2; exit 2
    fi
}
slice_rows() { # DB — how many slices a store recorded (read after jobrun closed it)
    "$PYTHON" -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from slices").fetchone()[0])' "$1"
}

# ---------------------------------------------------------------- mirror: plan with and without the store
if [[ " $PARTS " == *" mirror "* ]]; then
    want=$(( FILES * (MIN_SIZE + MAX_SIZE) / 2 ))
    have=0; [ -d "$ROOT" ] && have=$(du -sb "$ROOT" | cut -f1)
    free=$(( $(df -B1 --output=avail "$WORK" | tail -n 1) ))
    if [ $(( (want - have) * 11 / 10 )) -gt "$free" ]; then
        echo "bench: the mirror needs about $want bytes under $WORK and $free are free (BENCH_STATE_DIR, BENCH_STATE_FILES, BENCH_STATE_SIZE)" >&2
        exit 2
    fi
    stamp="$(sha256sum "$HERE/gen_manifest.py" | cut -c1-16) $FILES $PER_FOLDER $MIN_SIZE $MAX_SIZE"
    if [ ! -s "$MANIFEST" ] || [ "$(cat "$MANIFEST.stamp" 2>/dev/null)" != "$stamp" ]; then
        echo "writing $FILES files of $MIN_SIZE–$MAX_SIZE bytes ($PER_FOLDER a folder) under $ROOT ..."
        rm -f "$MANIFEST.stamp"
        "$PYTHON" "$HERE/gen_manifest.py" mirror "$ROOT" "$FILES" "$PER_FOLDER" "$MIN_SIZE" "$MAX_SIZE" "$MANIFEST" >/dev/null
        echo "$stamp" >"$MANIFEST.stamp"
    fi
    bytes=$(awk '{ s += $2 } END { printf "%.0f", s }' <(grep -E '^ +size: ' "$MANIFEST"))
    fstype=$(df --output=fstype "$ROOT" | tail -n 1 | tr -d ' ')
    rm -rf "$ROOT/.jobrun" "$WORK/jobrun-aside" "$EMPTY" && mkdir -p "$EMPTY"
    sync
    echo "mirror: $FILES files, $bytes bytes ($(calc "%.2f" "$bytes / 1073741824") GiB) on $fstype; creating its store with jobrun apply ..."
    run_ok apply-create "$JOBRUN" apply "$MANIFEST"
    tail -n 1 "$WORK/apply-create.out" | sed 's/^/  /'
    db=$ROOT/.jobrun/state.sqlite
    [ -f "$db" ] || { echo "bench: jobrun apply made no store at $db" >&2; exit 2; }
    rows=$(slice_rows "$db")
    [ "$rows" = "$FILES" ] || { echo "bench: the store records $rows slices, not $FILES" >&2; exit 2; }
    run_ok plan-warmup "$JOBRUN" plan "$MANIFEST"
    run_ok verify-quick "$JOBRUN" verify --quick -q "$MANIFEST"
    summary=$(tail -n 1 "$WORK/verify-quick.out")
    echo "  after one plan: $summary"
    [[ "$summary" == *" 0 proven by hashing, $FILES unchanged since proven."* ]] ||
        { echo "bench: after apply and one plan, the store should prove every file unchanged" >&2; exit 2; }

    printf '  measuring (a) plan --rehash ... '
    measure "plan-rehash" "$BENCH_RUNS" 1 "$JOBRUN" plan "$MANIFEST" --rehash
    wa=$M_WALL ca=$M_CPU ra=$M_RSS oa=$M_OTHER mna=$M_MIN mxa=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    printf "%ss; (a') plan without a store ... " "$wa"
    mv "$ROOT/.jobrun" "$WORK/jobrun-aside"
    measure "plan-nostore" "$BENCH_RUNS" 1 "$JOBRUN" plan "$MANIFEST"
    wn=$M_WALL cn=$M_CPU rn=$M_RSS on=$M_OTHER mnn=$M_MIN mxn=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    mv "$WORK/jobrun-aside" "$ROOT/.jobrun"
    printf '%ss; (b) plan ... ' "$wn"
    measure "plan-quick" "$QUICK_RUNS" 1 "$JOBRUN" plan "$MANIFEST"
    wb=$M_WALL cb=$M_CPU rb=$M_RSS ob=$M_OTHER mnb=$M_MIN mxb=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    printf '%ss; (c) find ... ' "$wb"
    measure "find" "$QUICK_RUNS" 1 find "$ROOT" -type f -printf '%s %T@\n'
    wc=$M_WALL cc=$M_CPU rc=$M_RSS oc=$M_OTHER mnc=$M_MIN mxc=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    printf '%ss; (d) plan into an empty folder ... ' "$wc"
    measure "plan-empty" "$QUICK_RUNS" 1 "$JOBRUN" plan "$MANIFEST" --output "$EMPTY"
    wd=$M_WALL cd_=$M_CPU rd=$M_RSS od=$M_OTHER mnd=$M_MIN mxd=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    echo "${wd}s"
    # The store must still prove every file: the timed runs changed nothing.
    run_ok verify-quick-after "$JOBRUN" verify --quick -q "$MANIFEST"
    [[ "$(tail -n 1 "$WORK/verify-quick-after.out")" == *" 0 proven by hashing,"* ]] ||
        { echo "bench: after the timed runs the store no longer proves every file: $(tail -n 1 "$WORK/verify-quick-after.out")" >&2; exit 2; }

    speedup=$(calc "%.1f" "$wa / $wb")
    speedup0=$(calc "%.1f" "$wn / $wb")
    bc=$(calc "%.2f" "$wb / $wc")
    own=$(calc "%.3f" "$mnb - $mnd")
    ownc=$(calc "%.2f" "($mnb - $mnd) / $mnc")
    echo
    echo "$FILES files, $(calc "%.2f" "$bytes / 1e9") GB (sizes $MIN_SIZE–$MAX_SIZE B, sha256, $((FILES / PER_FOLDER)) resources), $fstype; $(nproc) cores, $(calc "%.1f" "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1048576") GiB of memory"
    echo "median of $BENCH_RUNS runs for (a) and (a'), $QUICK_RUNS for the others, each after 1 warm-up"
    echo
    echo "| command | median wall s | min–max s | CPU s | peak RSS MiB | files/s | other load |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| (a) jobrun plan --rehash | $wa | $mna–$mxa | $ca | $(mib "$ra") | $(calc "%.0f" "$FILES / $wa") | $oa |"
    echo "| (a') jobrun plan, no store | $wn | $mnn–$mxn | $cn | $(mib "$rn") | $(calc "%.0f" "$FILES / $wn") | $on |"
    echo "| (b) jobrun plan (store) | $wb | $mnb–$mxb | $cb | $(mib "$rb") | $(calc "%.0f" "$FILES / $wb") | $ob |"
    echo "| (c) find -printf '%s %T@' | $wc | $mnc–$mxc | $cc | $(mib "$rc") | $(calc "%.0f" "$FILES / $wc") | $oc |"
    echo "| (d) jobrun plan, empty folder | $wd | $mnd–$mxd | $cd_ | $(mib "$rd") | $(calc "%.0f" "$FILES / $wd") | $od |"
    echo
    echo "(a)/(b) = ${speedup}×; (a')/(b) = ${speedup0}×; (b)/(c) = ${bc}×; the quick check's own cost, fastest (b) − fastest (d) = ${own} s = ${ownc}× the fastest (c)"
    echo
    target "plan of an unchanged mirror ≥ ${SPEEDUP_MIN}× faster than plan --rehash" "$wa / $wb >= $SPEEDUP_MIN" "${speedup}× ($wa s → $wb s)" "$oa" "$ob"
    target "quick check bounded by stat: (b)−(d) ≤ ${STAT_BOUND}× find" "($mnb - $mnd) <= $STAT_BOUND * $mnc" "${ownc}× (${own} s vs $mnc s; (b)/(c) = ${bc}×)" "$ob" "$oc" "$od"
fi

# ---------------------------------------------------------------- apply: what recording costs
# timed_apply MODE DEST MANIFEST — one apply into a fresh DEST, prints "task-clock-ms wall-ms
# busy-ms" (busy: all cores' busy time while it ran, nginx's left out).
#   store    DEST/.jobrun is a copy of $SEED's store (one slice, one run), as after a first run
#   nostore  DEST/.jobrun is a regular file: no store can be opened or created there
#   fresh    DEST is empty
timed_apply() {
    local mode=$1 dest=$2 manifest=$3 out=$WORK/apply-$1.out stat=$WORK/apply-$1.stat t0 t1 b0 b1 n0 n1 rows
    rm -rf "$dest"; mkdir -p "$dest"
    case $mode in
        store) cp -a "$SEED/.jobrun" "$dest/.jobrun" ;;
        nostore) : >"$dest/.jobrun" ;;
    esac
    b0=$(busy_centis); n0=$(nginx_centis); t0=$(now_ns)
    if [ -n "$PERF" ]; then
        perf stat -x, -e task-clock -o "$stat" -- "$JOBRUN" apply "$manifest" --output "$dest" >"$out" 2>&1 ||
            { echo "bench: apply ($mode) failed; see $out" >&2; return 2; }
    else
        /usr/bin/time -f '%U %S' -o "$stat" -- "$JOBRUN" apply "$manifest" --output "$dest" >"$out" 2>&1 ||
            { echo "bench: apply ($mode) failed; see $out" >&2; return 2; }
    fi
    t1=$(now_ns); b1=$(busy_centis); n1=$(nginx_centis)
    case $mode in
        store)
            rows=$(slice_rows "$dest/.jobrun/state.sqlite")
            # The seed's record goes: no slice names it, and its file is not there.
            [ "$rows" = "$APPLY_FILES" ] || { echo "bench: apply's store records $rows slices, not $APPLY_FILES" >&2; return 2; } ;;
        nostore)
            [ -f "$dest/.jobrun" ] || { echo "bench: .jobrun is no longer the regular file it was" >&2; return 2; } ;;
    esac
    # busy: every core's busy time meanwhile, nginx's left out, in ms
    local w=$(( (t1 - t0) / 1000000 )) busy=$(( (b1 - b0 - (n1 - n0)) * 10 ))
    if [ -n "$PERF" ]; then
        awk -F, -v w="$w" -v b="$busy" '$3 == "task-clock" { printf "%.1f %d %d\n", $1, w, b }' "$stat"
    else
        awk -v w="$w" -v b="$busy" '{ printf "%.1f %d %d\n", ($1 + $2) * 1000, w, b }' "$stat"
    fi
}
# CPU seconds ×100 the harness's nginx (master and workers) has used so far: its share of the
# load while apply runs is part of the set-up, not other load.
nginx_centis() {
    local master pids
    master=$(cat "$NGINX_PREFIX/nginx.pid" 2>/dev/null) || { echo 0; return; }
    pids="$master $(ps --ppid "$master" -o pid= | tr '\n' ' ')"
    for p in $pids; do cat "/proc/$p/stat" 2>/dev/null || true; done |
        awk -v hz="$CLK_TCK" '{ sub(/^.*\) /, ""); s += $12 + $13 } END { printf "%d\n", s * 100 / hz }'
}
range_of() { cut -d' ' -f1 | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "–" hi }'; }
median_of() { sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

if [[ " $PARTS " == *" apply "* ]]; then
    if [ ! -x "$SHARED/server.sh" ] || [ ! -x "$SHARED/corpus.sh" ]; then
        echo "bench/state.sh: the shared benchmark harness is missing (no server.sh/corpus.sh in $SHARED; set JOBRUN_SHARED_DIR)" >&2
        exit 2
    fi
    SHARED=$(cd "$SHARED" && pwd)
    export BENCH_ROOT=${BENCH_ROOT:-/tmp/jobrun-bench}
    # shellcheck source=/dev/null
    . "$SHARED/common.sh"
    PERF=""
    if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then PERF=perf; fi
    "$SHARED/corpus.sh" "$CORPUS_DIR" many >/dev/null
    if ! "$SHARED/server.sh" status >/dev/null 2>&1; then
        "$SHARED/server.sh" start "$CORPUS_DIR" >/dev/null; server_started=1
    fi
    am=$WORK/apply-many.yaml
    "$PYTHON" "$HERE/gen_apply_manifest.py" "$CORPUS_DIR/lists/many.tsv" "$am" \
        --base-url "http://$HOST:$PORT_H1/many" --conc "$APPLY_CONC" --group one --id many >/dev/null
    APPLY_FILES=$(grep -c '^ *- path: ' "$am")
    # The seed store: what `jobrun apply` leaves in a root where it proved one file.
    SEED=$WORK/apply-seed
    rm -rf "$SEED"; mkdir -p "$SEED/root"
    printf 'seed\n' >"$SEED/root/seed.bin"
    printf 'version: 1\ndefaults:\n  output: %s\nresources:\n  - id: seed\n    base_url: https://seed.example.invalid/\n    dest: .\n    slices:\n      - path: seed.bin\n        size: 5\n        sha256: %s\n' \
        "$SEED/root" "$(sha256sum "$SEED/root/seed.bin" | cut -d' ' -f1)" >"$SEED/seed.yaml"
    run_ok apply-seed "$JOBRUN" apply "$SEED/seed.yaml"
    [ "$(slice_rows "$SEED/root/.jobrun/state.sqlite" 2>/dev/null)" = 1 ] || { echo "bench: the seed store does not record its one slice" >&2; exit 2; }
    SEED=$SEED/root
    echo "apply set (b): $APPLY_FILES slices from http://$HOST:$PORT_H1/many into $APPLY_DIR ($(df --output=fstype "$(dirname "$APPLY_DIR")" | tail -n 1 | tr -d ' ')), concurrency $APPLY_CONC; $([ -n "$PERF" ] && echo "perf stat -e task-clock" || echo "GNU time user+sys")"
    # Untimed: the first apply into an empty root is to create the store and record every slice.
    timed_apply fresh "$APPLY_DIR" "$am" >/dev/null || exit 2
    db=$APPLY_DIR/.jobrun/state.sqlite
    if [ -f "$db" ]; then fresh_rows=$(slice_rows "$db"); fresh_shown="$fresh_rows slices recorded"; else fresh_rows=0; fresh_shown="no store created"; fi
    target "apply into an empty root creates its store, records all $APPLY_FILES" "$fresh_rows == $APPLY_FILES" "$fresh_shown"
    # a warm-up of each, then APPLY_RUNS pairs, the order turned each pair
    timed_apply store "$APPLY_DIR" "$am" >/dev/null || exit 2
    timed_apply nostore "$APPLY_DIR" "$am" >/dev/null || exit 2
    warning=$(grep -m1 'warning: .*\.jobrun' "$WORK/apply-nostore.out" || echo "(jobrun gave no warning: it did not try to record)")
    : >"$WORK/apply-store.tsv"; : >"$WORK/apply-nostore.tsv"
    for ((i = 0; i < APPLY_RUNS; i++)); do
        wait_quiet
        order="store nostore"; [ $((i % 2)) = 1 ] && order="nostore store"
        for mode in $order; do
            r=$(timed_apply "$mode" "$APPLY_DIR" "$am") || exit 2
            echo "$r" >>"$WORK/apply-$mode.tsv"
        done
    done
    rm -rf "$APPLY_DIR"
    ts=$(cut -d' ' -f1 "$WORK/apply-store.tsv" | median_of); tn=$(cut -d' ' -f1 "$WORK/apply-nostore.tsv" | median_of)
    aws=$(cut -d' ' -f2 "$WORK/apply-store.tsv" | median_of); awn=$(cut -d' ' -f2 "$WORK/apply-nostore.tsv" | median_of)
    rs=$(range_of <"$WORK/apply-store.tsv"); rn=$(range_of <"$WORK/apply-nostore.tsv")
    other=$(cat "$WORK"/apply-store.tsv "$WORK"/apply-nostore.tsv |
        awk '{ own += $1; wall += $2; busy += $3 } END { o = (busy - own) / wall; if (o < 0) o = 0; printf "%.2f", o }')
    extra=$(calc "%.1f" "($ts - $tn) / $tn * 100")
    # each run with the store against the run without it next to it: the machine's slow stretches cancel
    paired=$(paste -d' ' "$WORK/apply-store.tsv" "$WORK/apply-nostore.tsv" | awk '{ print $1 - $4 }' | median_of)
    echo "  without the store: $warning"
    echo
    echo "$APPLY_FILES × 16 KiB over HTTP/1.1 into tmpfs, median of $APPLY_RUNS runs each (alternating) after 1 warm-up;"
    echo "other load $other (nginx left out)"
    echo
    echo "| apply | task-clock ms (median) | min–max ms | wall ms (median) |"
    echo "|---|---:|---:|---:|"
    echo "| with the store ($APPLY_FILES slices recorded) | $ts | $rs | $aws |"
    echo "| without (ROOT/.jobrun a regular file) | $tn | $rn | $awn |"
    echo
    echo "the store's cost: $(calc "%.1f" "$ts - $tn") ms (${extra} %) median against median; $(calc "%.1f" "$paired") ms ($(calc "%.1f" "$paired / $tn * 100") %) the median of the $APPLY_RUNS differences between neighbouring runs"
    echo
    target "the store adds ≤ ${APPLY_OVERHEAD_MAX} % to apply set (b) (task-clock)" "($ts - $tn) / $tn * 100 <= $APPLY_OVERHEAD_MAX" "${extra} % ($tn → $ts ms)" "$other"
fi

finish "$cmdfail"
