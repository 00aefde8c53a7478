#!/usr/bin/env bash
# bench/refresh.sh BINARY: what `refresh: conditional` costs on an unchanged mirror. A private
# nginx (Debian nginx-light, ETag and Last-Modified on, `If-None-Match` answered with 304) on
# 127.0.0.1:8193 serves FILES generated files without digests; jobrun fetches them once, then
# revalidates them RUNS times. Beside it, curl fetches every file whole at the same concurrency:
# the time of FILES small requests.
#   Env: FILES (10000), SIZE_KIB (4), PER_HOST (16), RUNS (3), PREFIX (/tmp/jobrun-bench/refresh).
# Prints one line per run and the medians; a revalidation transfers 0 body bytes.
set -euo pipefail
bin="$(realpath "${1:?usage: bench/refresh.sh BINARY}")"
files="${FILES:-10000}"; kib="${SIZE_KIB:-4}"; per_host="${PER_HOST:-16}"; runs="${RUNS:-3}"
prefix="${PREFIX:-/tmp/jobrun-bench/refresh}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "curl missing: apt-get install -y curl" >&2; exit 1; }
mkdir -p "$prefix"/{corpus,logs,work}
if [[ ! -s "$prefix/corpus/.made-$files-$kib" ]]; then
  rm -rf "$prefix/corpus" && mkdir -p "$prefix/corpus"
  python3 - "$prefix/corpus" "$files" "$kib" <<'PY'
import os, sys
root, files, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(files):
    folder = os.path.join(root, "d%03d" % (i // 1000))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "f%05d.txt" % i), "wb") as f:
        f.write((b"%08d " % i) * (kib * 1024 // 9) + b"\n" * (kib * 1024 % 9))
PY
  touch "$prefix/corpus/.made-$files-$kib"
fi
private_nginx "$prefix" "log_format bytes '\$status \$body_bytes_sent';" "access_log $prefix/logs/access.log bytes;" "sendfile on;" \
  "root $prefix/corpus;" "server { listen 127.0.0.1:8193; }"

paths=$(cd "$prefix/corpus" && find . -name '*.txt' | sed 's|^\./||' | sort)
{
  echo "version: 1"
  echo "defaults: {output: ./mirror, refresh: conditional, concurrency: {per_host: $per_host, total: $per_host}}"
  echo "resources:"
  echo "  - id: r"
  echo "    base_url: http://127.0.0.1:8193/"
  echo "    dest: ."
  echo "    slices:"
  for p in $paths; do echo "      - {path: $p}"; done
} >"$prefix/work/site.yaml"
for p in $paths; do echo "url = \"http://127.0.0.1:8193/$p\""; echo "output = \"/dev/null\""; done >"$prefix/work/curl.conf"

log="$prefix/logs/access.log"
bodies() { awk -v from="$1" 'NR > from {n[$1]++; b += $2} END {printf "%d 200s, %d 304s, %d body bytes", n["200"], n["304"], b}' "$log"; }
lines() { wc -l <"$log"; }
elapsed() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
cd "$prefix/work"
declare -a fetch=() reval=() whole=()
for r in $(seq "$runs"); do
  rm -rf mirror
  before=$(lines); t=$(elapsed "$bin" apply site.yaml -q --offline-wait 0); fetch+=("$t")
  echo "run $r: fetch       $files files in ${t} s ($(bodies "$before"))"
  before=$(lines); t=$(elapsed "$bin" apply site.yaml -q --offline-wait 0); reval+=("$t")
  echo "run $r: revalidate  $files files in ${t} s ($(bodies "$before"))"
  before=$(lines); t=$(elapsed curl -s --no-progress-meter --parallel --parallel-max "$per_host" -K curl.conf); whole+=("$t")
  echo "run $r: curl whole  $files files in ${t} s ($(bodies "$before"))"
done
echo "median: fetch $(printf '%s\n' "${fetch[@]}" | median) s, revalidate $(printf '%s\n' "${reval[@]}" | median) s, curl $files whole requests $(printf '%s\n' "${whole[@]}" | median) s (concurrency $per_host)"
