#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (docs/fuzzing.md) and runs each for FUZZ_SECONDS
# with the seed corpus; exits non-zero, naming the reproducer, when one of them crashes.
#
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets, space-separated (default: all of them)
#   FUZZ_FLAGS     extra libFuzzer flags (e.g. -jobs=2 -workers=2, -only_ascii=1)
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"manifest checksum-list signature hls debian metalink response-head report-json metrics"}
SCRATCH=.build-fuzz
WORK=$SCRATCH/fuzz

product() {
    case "$1" in
        manifest) echo FuzzManifest ;;
        checksum-list) echo FuzzChecksumList ;;
        signature) echo FuzzSignature ;;
        hls) echo FuzzPlaylist ;;
        debian) echo FuzzDebian ;;
        metalink) echo FuzzMetalink ;;
        response-head) echo FuzzResponseHead ;;
        report-json) echo FuzzReportJSON ;;
        metrics) echo FuzzMetrics ;;
        *) echo "make fuzz: unknown target '$1' (manifest, checksum-list, signature, hls, debian, metalink, response-head, report-json, metrics)" >&2; exit 64 ;;
    esac
}

# SwiftPM links an executable's own `main` with `--defsym`; `-sanitize=fuzzer` links libFuzzer's
# as well, which GNU gold rejects (with an internal error) and lld lets the `--defsym` override.
# The toolchain ships lld beside swift.
swift_bin=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
lld=$swift_bin/ld.lld
[ -x "$lld" ] || lld=$(command -v ld.lld || true)
if [ -z "$lld" ]; then
    echo "make fuzz: ld.lld not found (it comes with the Swift toolchain, beside swift)" >&2
    exit 1
fi
mkdir -p "$WORK"
printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" > "$WORK/toolset.json"

build() {
    JOBRUN_FUZZ=1 "$SWIFT" build -c release --scratch-path "$SCRATCH" --toolset "$WORK/toolset.json" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing "$@"
}

# Seeds are rebuilt every run from what the repository holds; libFuzzer reads them and writes
# what it finds to the target's own corpus folder, which persists between runs.
seed() {
    local target=$1 dir=$WORK/seeds/$1
    rm -rf "$dir"
    mkdir -p "$dir"
    local lists
    lists=$(find manifests examples Tests/JobrunManifestTests/Fixtures Tests/JobrunIntegrationTests/Corpus \
        -type f -name '*sums' | sort)
    case "$target" in
        manifest)
            find manifests examples Tests/JobrunManifestTests/Fixtures Tests/JobrunIntegrationTests/Corpus \
                -type f \( -name '*.yaml' -o -name '*.yml' \) | sort | while read -r f; do
                cp "$f" "$dir/$(echo "$f" | tr '/' '_')"
            done
            # A manifest whose slices_from list travels in the same input (fuzz/manifest/main.swift).
            for f in $lists; do
                {
                    printf 'version: 1\nresources:\n  - id: listed\n    base_url: https://example.com/\n    slices_from: slices.sha256\n'
                    printf -- '\n--- 8< ---\n'
                    cat "$f"
                } > "$dir/with-list_$(echo "$f" | tr '/' '_')"
            done
            ;;
        checksum-list)
            # The first byte picks the resource's checksum: 0xff is none (guessed from the length).
            for f in $lists; do
                { printf '\xff'; cat "$f"; } > "$dir/$(echo "$f" | tr '/' '_')"
            done
            ;;
        signature)
            # Keys and signatures made by minisign and signify-openbsd, behind a scheme byte.
            for f in fuzz/corpus/signature/*; do
                case "$f" in *.minisig|minisign*) scheme='\x00' ;; *) scheme='\x01' ;; esac
                { printf "$scheme"; cat "$f"; } > "$dir/$(basename "$f")"
            done
            ;;
        hls)
            cp fuzz/corpus/hls/* "$dir/"
            ;;
        metalink)
            cp fuzz/corpus/metalink/* "$dir/"
            ;;
        debian)
            # A selector byte: 0 a Release, 1 a Packages index, 2 an armored key.
            for f in fuzz/corpus/debian/*; do
                case "$f" in *Release*) selector='\x00' ;; *Packages*) selector='\x01' ;; *) selector='\x02' ;; esac
                { printf "$selector"; cat "$f"; } > "$dir/$(basename "$f")"
            done
            ;;
        response-head)
            cp fuzz/corpus/head/* "$dir/"
            ;;
        report-json)
            # The reports jobrun writes (goldens), and the event schema for deeper nesting.
            for f in Tests/JobrunIntegrationTests/Golden/report/*.json docs/events.schema.json; do
                cp "$f" "$dir/$(echo "$f" | tr '/' '_')"
            done
            ;;
        metrics)
            # Metrics files as jobrun writes them.
            cp fuzz/corpus/metrics/* "$dir/"
            ;;
    esac
}

stat_of() { grep -o "^stat::$1: *[0-9]*" "$2" | grep -o '[0-9]*$' || echo 0; }

products=()
for target in $TARGETS; do products+=(--product "$(product "$target")"); done
for p in "${products[@]}"; do
    [ "$p" = --product ] && continue
    build --product "$p"
done
bin=$(build --show-bin-path)

# Swift's crash backtracer reads the crashed process's memory in a way ASan reports as a crash
# of its own, hiding the trap's message: libFuzzer's handler reports it instead.
export SWIFT_BACKTRACE=enable=no

failed=0
summary=()
for target in $TARGETS; do
    seed "$target"
    corpus=$WORK/corpus/$target
    crashes=$WORK/crashes/$target
    log=$WORK/logs/$target.log
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    dict=()
    [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
    echo "== fuzz $target: ${SECONDS_PER_TARGET}s, log $log"
    started=$(date +%s)
    status=0
    # shellcheck disable=SC2086
    "$bin/$(product "$target")" "$corpus" "$WORK/seeds/$target" "${dict[@]}" \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$crashes/" ${FUZZ_FLAGS:-} > "$log" 2>&1 || status=$?
    elapsed=$(( $(date +%s) - started ))
    execs=$(stat_of number_of_executed_units "$log")
    rate=$(stat_of average_exec_per_sec "$log")
    added=$(stat_of new_units_added "$log")
    size=$(find "$corpus" -type f | wc -l)
    line="$target: $execs executions ($rate/s) in ${elapsed}s, corpus $size inputs (+$added new)"
    if [ "$status" -ne 0 ]; then
        failed=1
        reproducer=$(grep -o 'Test unit written to .*' "$log" | sed 's/Test unit written to //' | tail -1)
        grep -E '==ERROR|^SUMMARY|fuzz property broken|deadly signal' "$log" | head -5 || true
        line="$line — CRASHED (exit $status), reproducer ${reproducer:-none written; see $log}"
    fi
    echo "$line"
    summary+=("$line")
done

echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
