#!/usr/bin/env bash
# bench/plan.sh JOBRUN — `jobrun validate/plan` speed on generated 100k / 1M-slice manifests,
# next to libyaml's bare event parsing and PyYAML's C loader (issue 2, "Speed").
#
#   make bench-plan                       # builds the release binary, then runs this
#   bash bench/plan.sh .build/release/jobrun
#
# Manifests are generated once into $BENCH_PLAN_DIR (default /tmp/jobrun-bench-plan) and kept
# between runs. Each row is the median of $BENCH_RUNS (3) runs after one warm-up; PyYAML on the
# 1M file runs once (it takes a minute and ~3.6 GB). Environment: BENCH_SIZES ("100000 1000000"),
# BENCH_RUNS, QUIET_WAIT=S (wait for an idle machine before each row), SKIP_PYYAML_1M=1,
# NO_HYPERFINE=1. Exit status: 0 all targets pass, 1 a target failed, 2 a command failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
JOBRUN=$(release_binary bench/plan.sh "${1:-}")
WORK=${BENCH_PLAN_DIR:-/tmp/jobrun-bench-plan}
SIZES=${BENCH_SIZES:-"100000 1000000"}

PYTHON=$(python3 -c 'import sys; print(sys.executable)')   # the real interpreter, not a pyenv shim
"$PYTHON" -c 'import yaml; yaml.CSafeLoader' 2>/dev/null ||
    die "PyYAML with its C loader is needed ($PYTHON: import yaml; yaml.CSafeLoader failed)"
need_gnu_time
mkdir -p "$WORK"
: >"$WORK/results.tsv"
compile_c "$HERE/yaml_events.c" "$BENCH_BIN/yaml_events" -lyaml

# ---- inputs (cached: regenerated only when missing or when the generator changed) ----
gen_sum=$(sha256sum "$HERE/gen_manifest.py" | cut -c1-16)
for n in $SIZES; do
    f="$WORK/slices-$n.yaml"
    if [ ! -s "$f" ] || [ "$(cat "$f.stamp" 2>/dev/null)" != "$gen_sum" ]; then
        echo "generating $f ..."
        "$PYTHON" "$HERE/gen_manifest.py" plan "$n" "$f"
        echo "$gen_sum" >"$f.stamp"
    fi
done
EMPTY="$WORK/empty-out"
rm -rf "$EMPTY" && mkdir -p "$EMPTY"

banner "jobrun plan benchmark" "; runs per row: $BENCH_RUNS (+1 warm-up)"

PY_LOAD='import sys, yaml; yaml.load(open(sys.argv[1], "rb"), Loader=yaml.CSafeLoader)'

declare -A W R C O F N
rows=()
cmdfail=0
for n in $SIZES; do
    f="$WORK/slices-$n.yaml"
    # sanity: the manifest must be valid and every slice a fetch
    if ! out=$("$JOBRUN" validate "$f" 2>"$WORK/validate-$n.stderr"); then
        echo "bench: jobrun validate rejected $f:" >&2; head -n 20 "$WORK/validate-$n.stderr" >&2; exit 2
    fi
    echo "$n slices ($(du -h "$f" | cut -f1)): $out"
    last=$("$JOBRUN" plan --output "$EMPTY" "$f" 2>/dev/null | tail -n 1) || true
    echo "  plan: $last"
    [ -z "$(ls -A "$EMPTY")" ] || die "jobrun plan wrote into $EMPTY"

    for tool in libyaml pyyaml validate plan plan-json; do
        runs=$BENCH_RUNS warm=1
        case $tool in
            libyaml)   cmd=("$BENCH_BIN/yaml_events" "$f") ;;
            pyyaml)    cmd=("$PYTHON" -c "$PY_LOAD" "$f"); warm=0
                       if [ "$n" -ge 1000000 ]; then
                           runs=1
                           if [ -n "${SKIP_PYYAML_1M:-}" ]; then continue; fi
                       fi ;;
            validate)  cmd=("$JOBRUN" validate "$f") ;;
            plan)      cmd=("$JOBRUN" plan --output "$EMPTY" "$f") ;;
            plan-json) cmd=("$JOBRUN" plan --json --output "$EMPTY" "$f") ;;
        esac
        printf '  measuring %-9s ... ' "$tool"
        if [ "$tool" = pyyaml ] && [ "$n" -ge 1000000 ]; then
            NOISY_RETRIES=0 measure "$tool-$n" "$runs" "$warm" "${cmd[@]}"   # a minute a run: no retries
        else
            measure "$tool-$n" "$runs" "$warm" "${cmd[@]}"
        fi
        k="$tool-$n"
        W[$k]=$M_WALL; R[$k]=$M_RSS; C[$k]=$M_CPU; O[$k]=$M_OTHER; F[$k]=$M_FAIL; N[$k]=$M_NOISY
        rows+=("$k|$M_MIN|$M_MAX|$runs")
        [ "$M_FAIL" = 0 ] || cmdfail=1
        echo "${M_WALL}s (${M_MIN}–${M_MAX}), $(mib "$M_RSS") MiB, other load $M_OTHER"
    done
    echo
done

# ---- table ----
label() {
    case $1 in
        libyaml) echo "libyaml events only (C, yaml_parser_parse loop)" ;;
        pyyaml) echo "PyYAML yaml.load(CSafeLoader)" ;;
        validate) echo "jobrun validate" ;;
        plan) echo "jobrun plan --output empty-dir" ;;
        plan-json) echo "jobrun plan --json > /dev/null" ;;
    esac
}
echo "| slices | command | median wall s | min–max s | runs | CPU s | peak RSS MiB | other load | × libyaml | PyYAML ÷ this |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
    IFS='|' read -r k mn mx runs <<<"$row"
    tool=${k%-*}; n=${k##*-}
    xl=$(calc "%.2f" "${W[$k]} / ${W[libyaml-$n]}")
    if [ -n "${W[pyyaml-$n]:-}" ]; then xp=$(calc "%.1f" "${W[pyyaml-$n]} / ${W[$k]}"); else xp="–"; fi
    note=""; [ "${F[$k]}" = 0 ] || note=" **exit ${F[$k]}**"
    printf '| %s | %s%s | %s | %s–%s | %s | %s | %s | %s | %s | %s |\n' \
        "$n" "$(label "$tool")" "$note" "${W[$k]}" "$mn" "$mx" "$runs" "${C[$k]}" "$(mib "${R[$k]}")" "${O[$k]}" "$xl" "$xp"
done
echo
echo "Issue 2 reference (idle machine): libyaml events 0.12 s / 1.3 s; PyYAML C loader 6.2 s / 66 s (3.6 GB)."
echo

# ---- targets ----
failed=0
target() { # DESCRIPTION CONDITION SHOWN [ROW...] — rows measured on a shared machine are flagged
    local r k noisy=""; r=$(pass_if "$2")
    [ "$r" = PASS ] || failed=1
    for k in "${@:4}"; do [ "${N[$k]:-0}" = 1 ] && noisy="$noisy $k(${O[$k]})"; done
    printf '%-4s  %-62s %s%s\n' "$r" "$1" "$3" "${noisy:+  [noisy, other load:$noisy]}"
}
echo "Targets (jobrun plan on an empty output folder):"
for n in $SIZES; do
    p=${W[plan-$n]:-}; [ -n "$p" ] || continue
    if [ "$n" = 100000 ]; then target "plan 100k slices < 0.5 s" "$p < 0.5" "${p} s" "plan-$n"; fi
    if [ "$n" = 1000000 ]; then
        target "plan 1M slices < 5 s" "$p < 5" "${p} s" "plan-$n"
        target "plan 1M slices peak RSS < 1 GiB" "${R[plan-$n]} < 1048576" "$(mib "${R[plan-$n]}") MiB" "plan-$n"
    fi
    if [ -n "${W[pyyaml-$n]:-}" ]; then
        target "plan $n ≥ 10× faster than PyYAML CSafeLoader" "${W[pyyaml-$n]} / $p >= 10" \
            "$(calc "%.1f" "${W[pyyaml-$n]} / $p")× (${W[pyyaml-$n]} s vs $p s)" "plan-$n" "pyyaml-$n"
    fi
    target "plan $n within 4× of libyaml events" "$p / ${W[libyaml-$n]} <= 4" \
        "$(calc "%.2f" "$p / ${W[libyaml-$n]}")× (${p} s vs ${W[libyaml-$n]} s)" "plan-$n" "libyaml-$n"
done
echo
echo "machine at the end: $(load_line); raw: $WORK/results.tsv, $WORK/time/, $WORK/logs/"
[ "$cmdfail" = 0 ] || exit 2
exit "$failed"
