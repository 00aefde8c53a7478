# bench/lib.sh — shared by the benchmarks under bench/ (source it, do not run it).
#
# measure NAME RUNS WARMUP CMD [ARG...]
#   Runs CMD (stdout to /dev/null, stderr to $WORK/logs/NAME.stderr) WARMUP + RUNS times,
#   with hyperfine (-N) when installed, else a plain loop; GNU time wraps every run for CPU
#   seconds and peak RSS. Sets:
#     M_WALL  median wall seconds of the RUNS timed runs   M_MIN / M_MAX  fastest / slowest
#     M_CPU   median user+sys seconds                      M_RSS          max peak RSS, KiB
#     M_OTHER other load: mean cores busy with anything but CMD while it was measured
#     M_FAIL  0, or the first non-zero exit status of a run
#   and appends a line to $WORK/results.tsv (one per attempt; see NOISY_RETRIES below).
#
# Environment: BENCH_RUNS (default 3), QUIET_WAIT=S (wait up to S seconds before each
# measurement for the machine to have < 0.3 cores busy with other work; default 0 = don't),
# NO_HYPERFINE=1 (use the plain loop).

BENCH_RUNS=${BENCH_RUNS:-3}
QUIET_WAIT=${QUIET_WAIT:-0}
CLK_TCK=$(getconf CLK_TCK)
BENCH_BIN=${BENCH_BIN:-/tmp/jobrun-bench-bin}

die() { echo "bench: $*" >&2; exit 1; }

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# private_nginx PREFIX LINE...: starts a private nginx (Debian nginx-light) whose config, logs,
# temporary files and pid live under PREFIX, with LINE... in its http block (servers, root,
# logging, rates); it is stopped when the script exits. The system's nginx is never touched.
private_nginx() {
    local prefix="$1" kind
    shift
    command -v nginx >/dev/null || die "nginx missing: apt-get install -y nginx-light"
    mkdir -p "$prefix"/{logs,tmp}
    NGINX_PID="$prefix/nginx.pid"
    {
        printf 'worker_processes 1;\npid %s;\nerror_log %s/logs/error.log warn;\n' "$NGINX_PID" "$prefix"
        printf 'events { worker_connections 1024; }\nhttp {\n    tcp_nodelay on;\n    keepalive_requests 1000000;\n'
        printf '    client_body_temp_path %s/tmp/body;\n' "$prefix"
        for kind in proxy fastcgi uwsgi scgi; do printf '    %s_temp_path %s/tmp/%s;\n' "$kind" "$prefix" "$kind"; done
        printf '    %s\n' "$@"
        printf '}\n'
    } >"$prefix/nginx.conf"
    private_nginx_stop
    nginx -q -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/logs/error.log"
    trap private_nginx_stop EXIT
    for _ in $(seq 50); do [[ -s "$NGINX_PID" ]] && break; sleep 0.1; done
}
private_nginx_stop() { if [[ -s "${NGINX_PID:-}" ]]; then kill -QUIT "$(cat "$NGINX_PID")" 2>/dev/null || true; fi; }

# release_binary SCRIPT PATH: the absolute path of the jobrun binary a benchmark was given, or a
# usage line (exit 2) naming SCRIPT when PATH is missing or not an executable.
release_binary() {
    [ -n "$2" ] || { echo "usage: $1 PATH-TO-RELEASE-JOBRUN" >&2; exit 2; }
    [ -x "$2" ] || { echo "$1: $2 is not an executable" >&2; exit 2; }
    echo "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
}

need_gnu_time() {
    if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f %M true >/dev/null 2>&1; then
        echo "bench: GNU time missing; installing it (apt-get install -y time)" >&2
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null ||
            die "cannot install GNU time; apt-get install -y time"
    fi
}

# compile_c SRC OUT LIBS... — compile a helper from bench/ into $BENCH_BIN when missing or stale.
compile_c() {
    local src=$1 out=$2; shift 2
    mkdir -p "$(dirname "$out")"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        ${CC:-cc} -O2 -Wall -o "$out" "$src" "$@" || die "cannot compile $src (needs ${*:-libc} headers)"
    fi
}

# machine-wide busy CPU seconds ×100 (user+nice+system+irq+softirq+steal), from /proc/stat
busy_centis() {
    awk -v hz="$CLK_TCK" '/^cpu /{ printf "%d\n", ($2+$3+$4+$7+$8+$9) * 100 / hz; exit }' /proc/stat
}

now_ns() { date +%s%N; }

# load over the last second: busy cores (machine-wide)
busy_cores_1s() {
    local a b; a=$(busy_centis); sleep 1; b=$(busy_centis)
    awk -v a="$a" -v b="$b" 'BEGIN{ printf "%.2f\n", (b-a)/100 }'
}

wait_quiet() {
    [ "${QUIET_WAIT%.*}" -gt 0 ] 2>/dev/null || return 0
    local waited=0 busy
    while [ "$waited" -lt "${QUIET_WAIT%.*}" ]; do
        busy=$(busy_cores_1s); waited=$((waited + 1))
        awk -v b="$busy" 'BEGIN{ exit !(b < 0.3) }' && return 0
    done
    echo "bench: machine still busy (${busy} cores) after ${QUIET_WAIT}s; measuring anyway" >&2
}

load_line() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"; }

# measure: measure_once, repeated (up to $NOISY_RETRIES more times, default 2) while the other-load
# meter says the machine was shared (> $NOISY_LIMIT cores, default 0.3); the quietest attempt is kept.
# M_NOISY=1 when even that one was above the limit.
NOISY_RETRIES=${NOISY_RETRIES:-2}
NOISY_LIMIT=${NOISY_LIMIT:-0.3}
measure() {
    local try=0 best="" bestother="" saved
    while :; do
        measure_once "$@"
        if [ -z "$best" ] || awk -v a="$M_OTHER" -v b="$bestother" 'BEGIN{ exit !(a < b) }'; then
            best="$M_WALL $M_MIN $M_MAX $M_CPU $M_RSS $M_OTHER $M_FAIL"; bestother=$M_OTHER
        fi
        awk -v o="$bestother" -v l="$NOISY_LIMIT" 'BEGIN{ exit !(o > l) }' || break
        [ "$try" -lt "$NOISY_RETRIES" ] || break
        try=$((try + 1))
        echo "bench: '$1' measured with other load $M_OTHER > $NOISY_LIMIT; again ($try/$NOISY_RETRIES) after waiting for a quiet machine" >&2
        saved=$QUIET_WAIT; [ "${QUIET_WAIT%.*}" -ge 30 ] 2>/dev/null || QUIET_WAIT=30
        wait_quiet; QUIET_WAIT=$saved
    done
    read -r M_WALL M_MIN M_MAX M_CPU M_RSS M_OTHER M_FAIL <<<"$best"
    M_NOISY=0; awk -v o="$M_OTHER" -v l="$NOISY_LIMIT" 'BEGIN{ exit !(o > l) }' && M_NOISY=1
    return 0
}

measure_once() {
    local name=$1 runs=$2 warmup=$3; shift 3
    mkdir -p "$WORK/cmd" "$WORK/logs" "$WORK/time"
    local script="$WORK/cmd/$name.sh" tfile="$WORK/time/$name.time" log="$WORK/logs/$name.stderr"
    {
        echo "#!/bin/sh"
        printf 'exec'; printf ' %q' "$@"; printf ' >/dev/null 2>>%q\n' "$log"
    } >"$script"
    : >"$tfile"; : >"$log"
    local tfmt='%e %U %S %M %x' walls="" i t0 t1 b0 b1 w0 w1
    wait_quiet
    b0=$(busy_centis); w0=$(now_ns)
    if command -v hyperfine >/dev/null && [ -z "${NO_HYPERFINE:-}" ]; then
        hyperfine -N -i --style none --warmup "$warmup" --runs "$runs" \
            --export-json "$WORK/time/$name.json" \
            "/usr/bin/time -f '$tfmt' -a -o $tfile sh $script" >/dev/null 2>>"$log"
        walls=$("${PYTHON:-python3}" -c 'import json,sys; print(" ".join("%.6f" % t for t in json.load(open(sys.argv[1]))["results"][0]["times"]))' "$WORK/time/$name.json")
    else
        for ((i = 0; i < warmup + runs; i++)); do
            t0=$(now_ns)
            /usr/bin/time -f "$tfmt" -a -o "$tfile" sh "$script"
            t1=$(now_ns)
            [ "$i" -ge "$warmup" ] && walls="$walls $(awk -v a="$t0" -v b="$t1" 'BEGIN{ printf "%.6f", (b-a)/1e9 }')"
        done
    fi
    w1=$(now_ns); b1=$(busy_centis)
    # GNU time lines: warm-up first; "Command exited with non-zero status N" lines precede a failed run's line
    local stats
    stats=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+ -?[0-9]+$' "$tfile" | awk -v warm="$warmup" -v walls="$walls" \
        -v b0="$b0" -v b1="$b1" -v w0="$w0" -v w1="$w1" '
        function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                           return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        { allcpu += $2 + $3; if (NR <= warm) next; k++; cpu[k] = $2 + $3; if ($4 > rss) rss = $4; if ($5 != 0 && !fail) fail = $5 }
        END {
            n = split(walls, w, " "); for (i = 1; i <= n; i++) { ww[i] = w[i] + 0; if (i == 1 || ww[i] < mn) mn = ww[i]; if (ww[i] > mx) mx = ww[i] }
            span = (w1 - w0) / 1e9; other = ((b1 - b0) / 100 - allcpu) / span; if (other < 0) other = 0
            printf "%.4f %.4f %.4f %.3f %d %.2f %d\n", median(ww, n), mn, mx, median(cpu, k), rss, other, fail + 0
        }')
    read -r M_WALL M_MIN M_MAX M_CPU M_RSS M_OTHER M_FAIL <<<"$stats"
    if [ -z "$M_WALL" ] || [ "$M_WALL" = "0.0000" ]; then M_FAIL=${M_FAIL:-1}; [ "$M_FAIL" = 0 ] && M_FAIL=1; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$runs" "$M_WALL" "$M_MIN" "$M_MAX" "$M_CPU" "$M_RSS" "$M_OTHER" "$M_FAIL" >>"$WORK/results.tsv"
    if [ "$M_FAIL" != 0 ]; then
        echo "bench: '$name' failed (exit $M_FAIL); stderr in $log:" >&2
        head -n 5 "$log" >&2
    fi
}

# fmt helpers (awk arithmetic)
calc() { awk "BEGIN{ printf \"$1\n\", $2 }"; }
mib() { awk -v k="$1" 'BEGIN{ printf "%.0f", k / 1024 }'; }
pass_if() { if awk "BEGIN{ exit !($1) }"; then echo PASS; else echo FAIL; fi; }

# banner TITLE [TIMER-NOTE] — the lines every benchmark's report starts with
banner() {
    echo "$1 — $(date -u +%FT%TZ), $("$JOBRUN" --version 2>/dev/null || echo '?'), $JOBRUN"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(load_line)"
    echo "timer: $(command -v hyperfine >/dev/null && [ -z "${NO_HYPERFINE:-}" ] && hyperfine --version || echo 'own loop'), GNU time for CPU and peak RSS${2:-}"
    echo
}

# target DESCRIPTION CONDITION SHOWN [OTHER-LOAD...] — adds a PASS/FAIL line to `results` (and
# sets failed=1 on a FAIL); flags figures taken with other load above $NOISY_LIMIT.
failed=0
results=()
TARGET_WIDTH=${TARGET_WIDTH:-58}
target() {
    local r o noisy=""; r=$(pass_if "$2")
    [ "$r" = PASS ] || failed=1
    for o in "${@:4}"; do awk -v o="$o" -v l="$NOISY_LIMIT" 'BEGIN{ exit !(o > l) }' && noisy="$noisy $o"; done
    results+=("$(printf "%-4s  %-${TARGET_WIDTH}s %s%s" "$r" "$1" "$3" "${noisy:+  [noisy, other load:$noisy]}")")
}

# finish CMDFAIL — prints the targets and exits: 2 when a command failed (CMDFAIL ≠ 0), else 1
# when a target failed, else 0
finish() {
    echo "Targets:"
    printf '%s\n' "${results[@]}"
    echo
    echo "machine at the end: $(load_line); raw: $WORK/results.tsv, $WORK/time/, $WORK/logs/"
    [ "$1" = 0 ] || exit 2
    exit "$failed"
}
