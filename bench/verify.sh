#!/usr/bin/env bash
# bench/verify.sh JOBRUN — `jobrun verify` speed (issue 2, "Speed"):
#   1. one 2 GiB page-cached file, each of md5 sha1 sha224 sha256 sha384 sha512, against an
#      in-process OpenSSL EVP digest over mmap (bench/evp_mmap.c, compiled into /tmp);
#      target: jobrun ≥ 90 % of its GB/s, and jobrun's peak RSS flat (< 256 MiB), not 2 GiB.
#   2. 10,000 files of 16 KiB (sha256, 20 resources): `verify --jobs 1` vs `verify` (all cores);
#      target: ≥ 1.7× on 2 cores.
#
#   make bench-verify
#   bash bench/verify.sh .build/release/jobrun
#
# Data goes to $BENCH_VERIFY_DIR (default /tmp/jobrun-bench-verify) and is deleted on exit
# (BENCH_KEEP=1 keeps it). Environment: BENCH_RUNS (3), BENCH_BIG_BYTES (2147483648),
# BENCH_ALGOS, BENCH_PARTS ("big many"), BENCH_MANY_FILES (10000), BENCH_MANY_RUNS (10), QUIET_WAIT=S, NO_HYPERFINE=1.
# Exit status: 0 all targets pass, 1 a target failed, 2 a command failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
JOBRUN=$(release_binary bench/verify.sh "${1:-}")
WORK=${BENCH_VERIFY_DIR:-/tmp/jobrun-bench-verify}
BIG_BYTES=${BENCH_BIG_BYTES:-2147483648}
ALGOS=${BENCH_ALGOS:-"md5 sha1 sha224 sha256 sha384 sha512"}
PARTS=${BENCH_PARTS:-"big many"}
MANY_FILES=${BENCH_MANY_FILES:-10000} MANY_SIZE=16384 MANY_RESOURCES=20
MANY_RUNS=${BENCH_MANY_RUNS:-10}   # short runs (~0.3 s): more of them, so one preempted run cannot move the median
RSS_FLAT_KIB=$((256 * 1024))

PYTHON=$(python3 -c 'import sys; print(sys.executable)')
need_gnu_time
command -v openssl >/dev/null || die "openssl (the command) is needed for the reference digests"
compile_c "$HERE/evp_mmap.c" "$BENCH_BIN/evp_mmap" -lcrypto

cleanup() {
    [ -n "${BENCH_KEEP:-}" ] && return 0
    rm -f "$WORK/big/data/blob.bin"
    rm -rf "$WORK/big" "$WORK/many"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$WORK"
: >"$WORK/results.tsv"

banner "jobrun verify benchmark" "; runs per row: $BENCH_RUNS"
cmdfail=0

# ---------------------------------------------------------------- 1. one big file
if [[ " $PARTS " == *" big "* ]]; then
    big="$WORK/big/data/blob.bin"
    mkdir -p "$WORK/big/data"
    if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" != "$BIG_BYTES" ]; then
        echo "writing $BIG_BYTES random bytes to $big ..."
        head -c "$BIG_BYTES" /dev/urandom >"$big"
    fi
    cat "$big" >/dev/null   # into the page cache
    gb=$(calc "%.3f" "$BIG_BYTES / 1e9"); gib="$(calc "%g" "$BIG_BYTES / 1073741824") GiB"
    table=()
    for algo in $ALGOS; do
        want=$(openssl dgst "-$algo" -r "$big" | cut -d' ' -f1)
        "$PYTHON" "$HERE/gen_manifest.py" one "$WORK/big" blob.bin "$algo" "$want" "$BIG_BYTES" "$WORK/big/$algo.yaml"
        # sanity (and warm-up): the baseline agrees with openssl dgst, jobrun says ok
        read -r _ _ inproc got < <("$BENCH_BIN/evp_mmap" "$big" "$algo")
        [ "$got" = "$want" ] || die "evp_mmap $algo digest $got != openssl dgst $want"
        if ! "$JOBRUN" verify "$WORK/big/$algo.yaml" >"$WORK/verify-$algo.out" 2>&1; then
            echo "bench: jobrun verify $algo did not pass:" >&2; head -n 20 "$WORK/verify-$algo.out" >&2; exit 2
        fi
        printf '  %-6s measuring openssl-evp-mmap ... ' "$algo"
        measure "evp-$algo" "$BENCH_RUNS" 0 "$BENCH_BIN/evp_mmap" "$big" "$algo"
        bw=$M_WALL brss=$M_RSS bo=$M_OTHER; [ "$M_FAIL" = 0 ] || cmdfail=1
        printf '%ss; jobrun verify ... ' "$bw"
        measure "verify-$algo" "$BENCH_RUNS" 0 "$JOBRUN" verify "$WORK/big/$algo.yaml"
        jw=$M_WALL jrss=$M_RSS jo=$M_OTHER jmin=$M_MIN jmax=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
        echo "${jw}s (other load $bo / $jo)"
        bgbs=$(calc "%.3f" "$BIG_BYTES / 1e9 / $bw"); jgbs=$(calc "%.3f" "$BIG_BYTES / 1e9 / $jw")
        igbs=$(calc "%.3f" "$BIG_BYTES / 1e9 / $inproc")
        ratio=$(calc "%.3f" "$bw / $jw")
        table+=("| $algo | $bgbs | $igbs | $jgbs | ${jw} (${jmin}–${jmax}) | **$ratio** | $(mib "$jrss") | $(mib "$brss") | $bo / $jo |")
        target "verify $gib $algo ≥ 0.90 × OpenSSL EVP mmap" "$ratio >= 0.90" "$ratio ($jgbs vs $bgbs GB/s)" "$bo" "$jo"
        target "verify $gib $algo peak RSS flat (< 256 MiB)" "$jrss < $RSS_FLAT_KIB" "$(mib "$jrss") MiB" "$jo"
    done
    echo
    echo "One $gb GB file (page-cached), one process per run, median of $BENCH_RUNS; GB/s = 10^9 bytes / median wall s"
    echo
    echo "| algo | OpenSSL EVP mmap GB/s (process) | (in-process timer, 1 run) | jobrun verify GB/s | jobrun wall s (min–max) | jobrun ÷ OpenSSL | jobrun peak RSS MiB | OpenSSL peak RSS MiB | other load (OpenSSL / jobrun) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${table[@]}"
    echo
    rm -f "$big"
fi

# ---------------------------------------------------------------- 2. many small files
if [[ " $PARTS " == *" many "* ]]; then
    many="$WORK/many"
    mkdir -p "$many"
    echo "writing $MANY_FILES files of $MANY_SIZE bytes in $MANY_RESOURCES resources under $many ..."
    "$PYTHON" "$HERE/gen_manifest.py" files "$many" "$MANY_FILES" "$MANY_SIZE" "$MANY_RESOURCES" "$WORK/many.yaml"
    sync
    if ! "$JOBRUN" verify -q "$WORK/many.yaml" >"$WORK/verify-many.out" 2>&1; then
        echo "bench: jobrun verify of the small files did not pass:" >&2; tail -n 20 "$WORK/verify-many.out" >&2; exit 2
    fi
    echo "  $(tail -n 1 "$WORK/verify-many.out")"
    printf '  measuring verify --jobs 1 ... '
    measure "verify-many-j1" "$MANY_RUNS" 1 "$JOBRUN" verify --jobs 1 "$WORK/many.yaml"
    w1=$M_WALL c1=$M_CPU r1=$M_RSS o1=$M_OTHER mn1=$M_MIN mx1=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    printf '%ss; verify (all cores) ... ' "$w1"
    measure "verify-many-jall" "$MANY_RUNS" 1 "$JOBRUN" verify "$WORK/many.yaml"
    wa=$M_WALL ca=$M_CPU ra=$M_RSS oa=$M_OTHER mna=$M_MIN mxa=$M_MAX; [ "$M_FAIL" = 0 ] || cmdfail=1
    echo "${wa}s"
    speedup=$(calc "%.2f" "$w1 / $wa")
    echo
    echo "$MANY_FILES files × $MANY_SIZE B (sha256, $MANY_RESOURCES resources, page-cached, $(df --output=fstype "$many" | tail -n 1 | tr -d ' ')), median of $MANY_RUNS after 1 warm-up"
    echo
    echo "| command | median wall s | min–max s | CPU s | peak RSS MiB | files/s | other load |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| jobrun verify --jobs 1 | $w1 | $mn1–$mx1 | $c1 | $(mib "$r1") | $(calc "%.0f" "$MANY_FILES / $w1") | $o1 |"
    echo "| jobrun verify (all $(nproc) cores) | $wa | $mna–$mxa | $ca | $(mib "$ra") | $(calc "%.0f" "$MANY_FILES / $wa") | $oa |"
    echo
    target "verify $MANY_FILES small files: all cores ≥ 1.7× --jobs 1" "$speedup >= 1.7" "${speedup}× ($w1 s → $wa s)" "$o1" "$oa"
fi

finish "$cmdfail"
