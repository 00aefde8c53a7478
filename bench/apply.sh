#!/usr/bin/env bash
# bench/apply.sh [JOBRUN] — `jobrun apply` download speed against aria2c, `curl --parallel` and
# wget2 (issue 3, "Speed"). Reuses the shared harness in ../shared/bench (deterministic corpus,
# private nginx on 127.0.0.1, peers.sh timing with hyperfine + GNU time, sha256sum verification).
#
#   make bench-apply                         # installs what is missing, builds, runs everything
#   bash bench/apply.sh [PATH-TO-RELEASE-JOBRUN]
#   SETS=seed MEDIA=tmpfs bash bench/apply.sh   # a subset
#
# Sets (corpus.sh): seed = 600 × 64 KiB in 3 resources (pkg-1/2/3: 100/200/300 slices),
#                   many = 10,000 × 16 KiB (one resource), large = 4 × 512 MiB (one resource).
# Every slice of jobrun's manifest carries its size and sha256 (bench/gen_apply_manifest.py),
# so jobrun verifies everything it writes; the peers verify nothing (peers.sh checks their
# output afterwards, untimed, and jobrun's the same way).
# Protocols: HTTP/1.1 on $PORT_H1 (8088; jobrun-h1, aria2c-h1, curl-h1, wget2-h1) and TLS + HTTP/2
# on $PORT_TLS (8443; jobrun-h2tls with --cacert, curl-h2tls, wget2-h2tls; aria2c-tls speaks
# HTTP/1.1 over TLS); ports and paths come from the harness's common.sh.
# Media: tmpfs (/dev/shm) and disk ($BENCH_ROOT/dl, ext4 under /tmp). Same concurrency for all.
#
# Environment:
#   SETS ("seed many large")  MEDIA ("tmpfs disk")  PROTOS ("h1 tls")  CONC (16)
#   RUNS (3; timed runs for seed and many)  TMPFS_RUNS (7; the same on tmpfs)  LARGE_RUNS (2)
#   WARMUP (1). Runs go in interleaved rounds — every tool once per round, the order turned by
#   one each round (bench/merge_rounds.py folds them together) — except on the settled disk
#   sets, where each tool's runs follow one another after its settling wait.
#   QUIET_WAIT=S   before each tool wait up to S s for an idle machine (default: 0 when the 1-min
#                  load average is under 1, else 10; the whole run then takes about 40 minutes,
#                  12 of them DISK_SETTLE)
#   CEILING=0      leave out the `cp -r` reference row
#   DISK_SETTLE=S  on the disk, wait S s (default: vm.dirty_expire_centisecs / 100 + 5) before
#                  each tool of sets seed and many, so that no tool pays for the inodes the
#                  tools before it deleted (see the comment at DISK_SETTLE below); 0: no wait
#   DURABLE_REF=0  leave out the disk-only reference row `ref-curl-h1-syncfs` (curl-h1, then
#                  `sync -f` of the download folder's file system: what curl would take if it
#                  made its files durable as jobrun does before it reports a resource complete)
#   PROFILE=1      after the tables, `perf record -g` one jobrun run of every set/medium/protocol
#                  whose target failed and print the top symbols
#   JOBRUN_SHARED_DIR (../shared, relative to the repository)  BENCH_ROOT (/tmp/jobrun-bench)
#   SWIFT, SWIFT_FLAGS, RELEASE_FLAGS: read by `make release`, which builds jobrun when no JOBRUN
#   is given (the Swift runtime linked statically on Linux; `make deps` installs missing build
#   packages first)  NO_INSTALL=1 (do not install missing peers)
# Exit status: 0 every target passed, 1 a target failed, 2 the benchmark itself failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
SHARED_BASE=${JOBRUN_SHARED_DIR:-$REPO/../shared}
SHARED=$SHARED_BASE/bench
if [ ! -x "$SHARED/peers.sh" ] || [ ! -x "$SHARED/server.sh" ] || [ ! -x "$SHARED/corpus.sh" ]; then
    echo "bench/apply.sh: the shared benchmark harness is missing: no corpus.sh/server.sh/peers.sh in $SHARED" >&2
    echo "  (set JOBRUN_SHARED_DIR to the folder that holds bench/; default: $REPO/../shared)" >&2
    exit 2
fi
SHARED=$(cd "$SHARED" && pwd)

SETS=${SETS:-"seed many large"}
MEDIA=${MEDIA:-"tmpfs disk"}
PROTOS=${PROTOS:-"h1 tls"}
CONC=${CONC:-16}
RUNS=${RUNS:-3}
# On tmpfs sets (a) and (b) take well under a few seconds a run and their checks are decided by a
# few per cent, while single runs there vary by more: with 3 runs one slow run moves the median.
TMPFS_RUNS=${TMPFS_RUNS:-7}
LARGE_RUNS=${LARGE_RUNS:-2}
WARMUP=${WARMUP:-1}
CEILING=${CEILING:-1}
# ext4 without a journal (this VM's /tmp) does not reuse an inode deleted in the last
# dirty_expire interval (recently_deleted() in fs/ext4/ialloc.c): it scans past every one of
# them for each new file. Every run deletes the last run's output first, so a tool timed soon
# after other tools' runs pays for their deletions too, and the later a tool comes in the
# sequence the more it pays (`cp -r` of set (a), timed after the peers, was slower than curl). Before
# each tool of sets (a) seed and (b) many on the disk, the benchmark waits that interval plus 5 s, so every
# tool starts from the same state and pays only for its own runs. 0 turns this off.
DISK_SETTLE=${DISK_SETTLE:-$(( $(cat /proc/sys/vm/dirty_expire_centisecs 2>/dev/null || echo 3000) / 100 + 5 ))}
DURABLE_REF=${DURABLE_REF:-1}
export BENCH_ROOT=${BENCH_ROOT:-/tmp/jobrun-bench}
# The harness's own defaults (ports, nginx prefix), so manifests point where its nginx listens.
# shellcheck source=/dev/null
. "$SHARED/common.sh"
TMPFS_DL=${TMPFS_DL:-/dev/shm/jobrun-bench-dl}
DISK_DL=${DISK_DL:-$DL_ROOT}
for s in $SETS; do case $s in seed|many|large) ;; *) echo "bench/apply.sh: unknown set '$s' (seed many large)" >&2; exit 2 ;; esac; done
for m in $MEDIA; do case $m in tmpfs|disk) ;; *) echo "bench/apply.sh: unknown medium '$m' (tmpfs disk)" >&2; exit 2 ;; esac; done
for p in $PROTOS; do case $p in h1|tls) ;; *) echo "bench/apply.sh: unknown protocol '$p' (h1 tls)" >&2; exit 2 ;; esac; done
for v in RUNS TMPFS_RUNS LARGE_RUNS WARMUP DISK_SETTLE; do
    case ${!v} in ''|*[!0-9]*) echo "bench/apply.sh: $v must be a whole number, not '${!v}'" >&2; exit 2 ;; esac
done
for v in RUNS TMPFS_RUNS LARGE_RUNS; do
    [ "${!v}" -gt 0 ] || { echo "bench/apply.sh: $v must be at least 1" >&2; exit 2; }
done

# ---------------------------------------------------------------- prerequisites
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have nginx || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
have aria2c || need+=(aria2)
have wget2 || need+=(wget2)
have curl || need+=(curl)
have hyperfine || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
    [ -z "${NO_INSTALL:-}" ] || { echo "bench/apply.sh: missing packages: ${need[*]} (NO_INSTALL is set)" >&2; exit 2; }
    echo "bench/apply.sh: installing ${need[*]}"
    if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null; then
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
            $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null ||
            { echo "bench/apply.sh: apt-get install ${need[*]} failed" >&2; exit 2; }
    fi
fi
export PATH="$PATH:/usr/sbin"

# ---------------------------------------------------------------- jobrun
if [ $# -ge 1 ]; then
    JOBRUN=$1
else
    echo "building jobrun (make release) ..."
    make -C "$REPO" --no-print-directory release >&2 || { echo "bench/apply.sh: make release failed" >&2; exit 2; }
    JOBRUN=$(make -C "$REPO" --no-print-directory -s release-bin)
fi
[ -x "$JOBRUN" ] || { echo "bench/apply.sh: $JOBRUN is not an executable" >&2; exit 2; }
JOBRUN=$(cd "$(dirname "$JOBRUN")" && pwd)/$(basename "$JOBRUN")

# ---------------------------------------------------------------- corpus and server
"$SHARED/corpus.sh" "$CORPUS_DIR" $SETS
CORPUS_LISTS=$CORPUS_DIR/lists
started=0
cleanup() {
    rm -rf "$TMPFS_DL"
    if [ "$started" = 1 ]; then "$SHARED/server.sh" stop || true; fi
}
trap cleanup EXIT
if ! "$SHARED/server.sh" status >/dev/null 2>&1; then
    "$SHARED/server.sh" start "$CORPUS_DIR"; started=1
fi
CERT=$NGINX_PREFIX/cert.pem
# The cert is for $HOST (CN and subjectAltName IP:127.0.0.1): jobrun verifies it via --cacert.
[ -s "$CERT" ] || { echo "bench/apply.sh: no server certificate at $CERT" >&2; exit 2; }
sync

# ---------------------------------------------------------------- manifests
for s in $SETS; do
    work=$BENCH_ROOT/work/$s
    mkdir -p "$work"
    group=one; [ "$s" = seed ] && group=top
    python3 "$HERE/gen_apply_manifest.py" "$CORPUS_LISTS/$s.tsv" "$work/jobrun-h1-c$CONC.yaml" \
        --base-url "http://$HOST:$PORT_H1/$s" --conc "$CONC" --group "$group" --id "$s" >/dev/null
    python3 "$HERE/gen_apply_manifest.py" "$CORPUS_LISTS/$s.tsv" "$work/jobrun-tls-c$CONC.yaml" \
        --base-url "https://$HOST:$PORT_TLS/$s" --conc "$CONC" --group "$group" --id "$s" >/dev/null
    "$JOBRUN" validate "$work/jobrun-h1-c$CONC.yaml" >/dev/null || { echo "bench/apply.sh: jobrun rejected $work/jobrun-h1-c$CONC.yaml" >&2; exit 2; }
done

# ---------------------------------------------------------------- load
load1=$(cut -d' ' -f1 /proc/loadavg)
if [ -z "${QUIET_WAIT:-}" ]; then
    if awk -v l="$load1" 'BEGIN{ exit !(l >= 1) }'; then QUIET_WAIT=10; else QUIET_WAIT=0; fi
fi
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${BENCH_APPLY_OUT:-$BENCH_ROOT/results/apply-$STAMP}
mkdir -p "$OUT"
{
    echo "jobrun apply benchmark — $(date -u +%FT%TZ)"
    echo "jobrun: $JOBRUN ($("$JOBRUN" version 2>/dev/null | tr '\n' ' ' | sed 's/ *$//'))"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load average at start $(cut -d' ' -f1-3 /proc/loadavg); quiet-wait ${QUIET_WAIT}s"
    echo "peers: $(aria2c --version | head -1), $(curl --version | head -1 | cut -d' ' -f1-2), $(wget2 --version 2>/dev/null | head -1), $(nginx -v 2>&1)"
    echo "sets: $SETS; media: $MEDIA; protocols: $PROTOS; concurrency $CONC; runs $RUNS (tmpfs $TMPFS_RUNS, large $LARGE_RUNS) + $WARMUP warm-up; interleaved rounds (each tool's runs in a row on the settled disk sets)"
} | tee "$OUT/meta.txt"
echo

# ---------------------------------------------------------------- runs
q() { printf '%q' "$1"; }
only=""
extras=()
for p in $PROTOS; do
    case $p in
        h1)  only+="aria2c-h1,curl-h1,wget2-h1,jobrun-h1,"
             extras+=(--extra "jobrun-h1=exec $(q "$JOBRUN") apply {work}/jobrun-h1-c{conc}.yaml --output {dest}") ;;
        tls) only+="aria2c-tls,curl-h2tls,wget2-h2tls,jobrun-h2tls,"
             extras+=(--extra "jobrun-h2tls=exec $(q "$JOBRUN") apply {work}/jobrun-tls-c{conc}.yaml --output {dest} --cacert {cert}") ;;
    esac
done
[ "$CEILING" = 1 ] && only+="ceiling-cp-local,"
only=${only%,}
# peers RUNS WARMUP QUIET_WAIT TOOLS RESULTS: one peers.sh call for set $s into $dl (timing, then
# verification of the last run's output), its output appended to the set's log.
peers() {
    DL_ROOT=$dl RESULTS_ROOT=$OUT "$SHARED/peers.sh" "$s" --conc "$CONC" --runs "$1" --warmup "$2" \
        --quiet-wait "$3" --only "$4" "${m_extras[@]}" --out "$5" >>"$OUT/$s-$m.log" 2>&1
}
# Everywhere but the settled disk sets, tools are timed in interleaved rounds: hyperfine times one
# tool's runs back to back, so a slow stretch of this VM (seen: ±15 % for a minute) fell on
# whichever tool was running and decided checks within that margin. In rounds, each tool runs
# once per round and the order turns by one place each round, so a slow stretch is shared.
# (Each peers.sh call also prints a summary of its round folder; only the merged one is used.)
cmdfail=0
for s in $SETS; do
    for m in $MEDIA; do
        runs=$RUNS; [ "$m" = tmpfs ] && runs=$TMPFS_RUNS; [ "$s" = large ] && runs=$LARGE_RUNS
        dl=$DISK_DL; [ "$m" = tmpfs ] && dl=$TMPFS_DL
        m_only=$only; m_extras=("${extras[@]}")
        if [ "$m" = disk ] && [ "$DURABLE_REF" = 1 ] && [[ " $PROTOS " == *" h1 "* ]]; then
            m_only+=",ref-curl-h1-syncfs"
            m_extras+=(--extra "ref-curl-h1-syncfs=cd {dest} && curl -sS --fail --create-dirs --parallel --parallel-max {conc} -K {work}/curl-h1.cfg && exec sync -f .")
        fi
        echo "=== $s on $m ($dl) — load average $(cut -d' ' -f1-3 /proc/loadavg)"
        : >"$OUT/$s-$m.log"
        failure=""
        IFS=, read -r -a tools <<<"$m_only"
        if [ "$m" = disk ] && [ "$DISK_SETTLE" -gt 0 ] && [ "$s" != large ]; then
            # On the disk, each tool starts from a settled file system (see DISK_SETTLE): one
            # peers.sh call per tool, all its runs in a row, into the same results folder, whose
            # summary then covers them all.
            for g in "${tools[@]}"; do
                sync
                echo "   settling the file system ${DISK_SETTLE}s before $g" >>"$OUT/$s-$m.log"
                sleep "$DISK_SETTLE"
                peers "$runs" "$WARMUP" "$QUIET_WAIT" "$g" "$OUT/$s-$m" || { failure="peers.sh failed"; break; }
                # Each call rewrites meta.txt (load average before and after it): keep every tool's.
                cp "$OUT/$s-$m/meta.txt" "$OUT/$s-$m/meta-$g.txt" || true
            done
        else
            # Interleaved rounds (see above peers()). Only the first round warms up, and the wait
            # for a quiet machine comes once per round. Each round's outputs are verified, and
            # each call's meta.txt is kept for merge_rounds.py, which folds the rounds into one
            # results folder.
            rm -rf "$OUT/$s-$m/rounds"
            n=${#tools[@]}
            rounds=()
            for ((r = 0; r < runs; r++)); do
                rd="$OUT/$s-$m/rounds/$((r + 1))"
                rounds+=("$rd")
                warm=0; [ "$r" = 0 ] && warm=$WARMUP
                for ((i = 0; i < n; i++)); do
                    g=${tools[$(((r + i) % n))]}
                    quiet=0; [ "$i" = 0 ] && quiet=$QUIET_WAIT
                    peers 1 "$warm" "$quiet" "$g" "$rd" || { failure="peers.sh failed"; break 2; }
                    cp "$rd/meta.txt" "$rd/meta-$g.txt"
                done
            done
            if [ -z "$failure" ]; then
                { python3 "$HERE/merge_rounds.py" "$OUT/$s-$m" "${rounds[@]}" &&
                    python3 "$SHARED/lib/summarize.py" "$OUT/$s-$m" >"$OUT/$s-$m/summary.md"; } >>"$OUT/$s-$m.log" 2>&1 ||
                    failure="merging the rounds failed"
            fi
        fi
        if [ -n "$failure" ]; then
            echo "bench/apply.sh: $failure for $s on $m; see $OUT/$s-$m.log" >&2
            tail -n 20 "$OUT/$s-$m.log" >&2
            cmdfail=1
            continue
        fi
        grep '^|' "$OUT/$s-$m/summary.md" | sed 's/^/  /' || true
        [ "$m" = tmpfs ] && rm -rf "$TMPFS_DL"
    done
done
echo

# ---------------------------------------------------------------- tables and targets
set +e
python3 "$HERE/apply_report.py" "$OUT" --sets "$SETS" --media "$MEDIA" --protos "$PROTOS" | tee "$OUT/report.md"
status=${PIPESTATUS[0]}
set -e
echo
echo "machine at the end: load average $(cut -d' ' -f1-3 /proc/loadavg); raw results: $OUT"

# ---------------------------------------------------------------- optional profile of failures
if [ "${PROFILE:-0}" = 1 ] && [ -s "$OUT/failed.txt" ] && command -v perf >/dev/null; then
    echo
    echo "Profiles of the failed targets (perf record -g, one run each):"
    while read -r s m p; do
        [ -n "$s" ] || continue
        dl=$DISK_DL; [ "$m" = tmpfs ] && dl=$TMPFS_DL
        dest=$dl/profile-$s-$p; rm -rf "$dest"; mkdir -p "$dest"; sync
        args=(apply "$BENCH_ROOT/work/$s/jobrun-$p-c$CONC.yaml" --output "$dest")
        [ "$p" = tls ] && args+=(--cacert "$CERT")
        data=$OUT/perf-$s-$m-$p.data
        perf record -q -g -o "$data" -- "$JOBRUN" "${args[@]}" >/dev/null 2>"$OUT/perf-$s-$m-$p.stderr" || true
        echo "--- $s on $m over $p: top symbols (self time) ---"
        perf report -i "$data" --no-children -g none --sort dso,symbol --percent-limit 1.5 --stdio 2>/dev/null |
            grep -E '^ +[0-9]' | sed 's/ *$//' | head -n 25 |
            { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; elif command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; } | cut -c1-160
        rm -rf "$dest"
    done <"$OUT/failed.txt"
fi
[ "$cmdfail" = 0 ] || exit 2
exit "$status"
