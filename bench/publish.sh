#!/usr/bin/env bash
# bench/publish.sh BINARY: what `publish: atomic` costs when one file of a mirror changes. A
# private nginx on 127.0.0.1:8194 serves generated 1 KiB files; for each size in SIZES, jobrun
# fetches a resource of that many files with digests, then applies a version that changes one of
# them, RUNS times each: published in place, and atomically (a stage of hard links, one exchange).
# For the atomic updates, strace -c counts the links made and the time of the exchange itself.
#   Env: SIZES ("100 10000"), RUNS (3), PREFIX (/tmp/jobrun-bench/publish).
set -euo pipefail
bin="$(realpath "${1:?usage: bench/publish.sh BINARY}")"
sizes="${SIZES:-100 10000}"; runs="${RUNS:-3}"
prefix="${PREFIX:-/tmp/jobrun-bench/publish}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || { echo "strace missing: apt-get install -y strace" >&2; exit 1; }
largest=$(printf '%s\n' $sizes | sort -n | tail -1)
mkdir -p "$prefix"/{corpus,logs,work}
if [[ ! -s "$prefix/corpus/.made-$largest" ]]; then
  rm -rf "$prefix/corpus" && mkdir -p "$prefix/corpus"
  python3 - "$prefix/corpus" "$((largest + 1))" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    folder = os.path.join(root, "d%03d" % (i // 1000))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "f%05d.bin" % i), "wb") as f:
        f.write((b"%08d " % i) * 113 + b"\n" * 7)
PY
  touch "$prefix/corpus/.made-$largest"
fi
private_nginx "$prefix" "access_log off;" "sendfile on;" "root $prefix/corpus;" "server { listen 127.0.0.1:8194; }"

# manifest N MODE VERSION: N files; version 2 takes the last slice's bytes from the spare file.
manifest() {
  local n=$1 mode=$2 version=$3
  (cd "$prefix/corpus" && python3 - "$n" "$mode" "$version" "$largest" <<'PY'
import hashlib, sys
n, mode, version, spare = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def name(i): return "d%03d/f%05d.bin" % (i // 1000, i)
print("version: 1\ndefaults: {output: ./mirror, concurrency: {per_host: 16, total: 16}}\nresources:\n  - id: r\n    publish: %s\n    slices:" % mode)
for i in range(n):
    source = name(spare if (version == 2 and i == n - 1) else i)
    digest = hashlib.sha256(open(source, "rb").read()).hexdigest()
    print("      - {path: %s, url: \"http://127.0.0.1:8194/%s\", size: 1024, sha256: %s}" % (name(i), source, digest))
PY
  )
}
elapsed() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
cd "$prefix/work"
for n in $sizes; do
  for mode in in_place atomic; do
    manifest "$n" "$mode" 1 >v1.yaml
    manifest "$n" "$mode" 2 >v2.yaml
    declare -a times=()
    for r in $(seq "$runs"); do
      rm -rf mirror
      "$bin" apply v1.yaml -q --offline-wait 0 >/dev/null
      t=$(elapsed "$bin" apply v2.yaml -q --offline-wait 0); times+=("$t")
    done
    line="$n files, $mode: one file changed, applied in $(printf '%s\n' "${times[@]}" | median) s (median of $runs)"
    if [[ $mode == atomic ]]; then
      rm -rf mirror
      "$bin" apply v1.yaml -q --offline-wait 0 >/dev/null
      strace -f -c -o "$prefix/logs/strace-$n.txt" -e trace=linkat,renameat2 "$bin" apply v2.yaml -q --offline-wait 0 >/dev/null
      links=$(awk '$NF == "linkat" {print $4}' "$prefix/logs/strace-$n.txt")
      exchange=$(awk '$NF == "renameat2" {print $3}' "$prefix/logs/strace-$n.txt")
      line+="; $links links, renameat2 (probe and exchange) ${exchange} us a call (under strace)"
    fi
    echo "$line"
  done
done
