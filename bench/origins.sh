#!/usr/bin/env bash
# bench/origins.sh BINARY: files per second of `jobrun apply` against one origin and against two,
# each origin capped at the same rate (nginx `limit_rate` per connection, `per_host` connections
# each), on loopback. A private nginx (Debian nginx-light) on 127.0.0.1:8191 and :8192 serves one
# generated corpus; its config, logs and pid live under $PREFIX, the system's are never touched.
#   Env: FILES (120), SIZE_KIB (128), RATE (limit_rate, 1m), PER_HOST (4), RUNS (3),
#        PREFIX (/tmp/jobrun-bench/origins).
# Prints one line per run and the medians; two equal origins should give close to twice one.
set -euo pipefail
bin="$(realpath "${1:?usage: bench/origins.sh BINARY}")"
files="${FILES:-120}"; kib="${SIZE_KIB:-128}"; rate="${RATE:-1m}"; per_host="${PER_HOST:-4}"; runs="${RUNS:-3}"
prefix="${PREFIX:-/tmp/jobrun-bench/origins}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$prefix"/{corpus,work}
for i in $(seq 0 $((files - 1))); do
  f="$prefix/corpus/f$i.bin"
  [[ -s "$f" && $(stat -c %s "$f") -eq $((kib * 1024)) ]] || head -c $((kib * 1024)) /dev/urandom >"$f"
done
private_nginx "$prefix" "access_log off;" "sendfile off;" "root $prefix/corpus;" "limit_rate $rate;" \
  "server { listen 127.0.0.1:8191; }" "server { listen 127.0.0.1:8192; }"

manifest() {   # manifest ORIGINS...
  echo "version: 1"
  echo "defaults: {output: ./mirror, concurrency: {per_host: $per_host, total: 64}}"
  echo "resources:"
  echo "  - id: r"
  echo "    base_urls: [$(printf '%s, ' "$@" | sed 's/, $//')]"
  echo "    slices:"
  for i in $(seq 0 $((files - 1))); do echo "      - {path: f$i.bin, size: $((kib * 1024))}"; done
}
manifest http://127.0.0.1:8191/ >"$prefix/work/one.yaml"
manifest http://127.0.0.1:8191/ http://127.0.0.1:8192/ >"$prefix/work/two.yaml"

declare -A rates
for kind in one two; do
  for r in $(seq "$runs"); do
    rm -rf "$prefix/work/mirror"
    start=$(date +%s.%N)
    (cd "$prefix/work" && JOBRUN_PROGRESS=none "$bin" apply "$kind.yaml" -q --offline-wait 0 >/dev/null)
    end=$(date +%s.%N)
    fps=$(awk -v n="$files" -v a="$start" -v b="$end" 'BEGIN {print n / (b - a)}')
    printf '%s origin(s), run %d: %.2f s, %.1f files/s\n' "$kind" "$r" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$fps"
    rates[$kind]+="$fps"$'\n'
  done
done
one=$(printf '%s' "${rates[one]}" | median); two=$(printf '%s' "${rates[two]}" | median)
printf 'median: one origin %.1f files/s, two origins %.1f files/s: %.2fx (%d x %d KiB, limit_rate %s, per_host %d)\n' \
  "$one" "$two" "$(awk -v a="$one" -v b="$two" 'BEGIN {print b / a}')" "$files" "$kib" "$rate" "$per_host"
