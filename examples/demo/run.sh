#!/usr/bin/env bash
# The jobrun demo: a loopback HTTP server over examples/demo/site, then validate, plan, apply,
# plan again (nothing to do), verify; then break the mirror on purpose, watch verify catch every
# problem and apply repair it; then pin what is in place as sha256sum lists.
# Usage: examples/demo/run.sh [path/to/jobrun]
set -euo pipefail
JOBRUN=${1:-jobrun}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/jobrun-demo.XXXXXX")
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mirror=mirror

# A loopback server on a free port (no internet is needed or used).
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$here/site" >"$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "demo: the loopback server did not start" >&2; cat "$work/server.log" >&2; exit 1; }

# Work in a scratch copy so the paths printed are short and the repository stays clean; the
# manifest names port 8765, the copy the port the server got.
sed "s/127.0.0.1:8765/127.0.0.1:$port/" "$here/demo.yaml" > "$work/demo.yaml"
cp "$here/lesson-a.sha256sums" "$work/"
cd "$work"
printf 'demo: serving %s on http://127.0.0.1:%s/\n' "$here/site" "$port"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { step "jobrun $*"; "$JOBRUN" "$@"; }
expect_status() {  # expect_status CODE jobrun-args…: run and insist on the exit status
    local want=$1; shift
    step "jobrun $*"
    set +e; "$JOBRUN" "$@"; local got=$?; set -e
    echo "(exit status $got)"
    [ "$got" = "$want" ] || { echo "demo: expected exit status $want, got $got" >&2; exit 1; }
}

run validate demo.yaml --require-digests
run graph demo.yaml
expect_status 2 plan demo.yaml --detailed-exitcode

expect_status 0 apply demo.yaml --junit apply.xml

expect_status 0 plan demo.yaml --detailed-exitcode
run verify demo.yaml --junit verify.xml

step "break the mirror: corrupt one slice, truncate one, delete one, drop in junk"
printf 'X' | dd of="$mirror/lessons/a/raw/ts/0003.ts" bs=1 seek=100 conv=notrunc status=none
head -c 100 "$mirror/intro/cover.png" > short && mv short "$mirror/intro/cover.png"
rm "$mirror/lessons/b/0002.ts"
echo junk > "$mirror/lessons/a/raw/ts/0007.ts.tmp"
expect_status 1 verify demo.yaml --extra --junit verify-broken.xml
expect_status 2 plan demo.yaml -v --detailed-exitcode
expect_status 0 apply demo.yaml
expect_status 0 verify demo.yaml --quiet

step "pin every file in place: a sha256sum list per resource, usable as its slices_from"
run verify demo.yaml --quiet --record-sums 'pins/{id}.sha256'
step "sha256sum -c pins/lesson-a.sha256, from the resource's folder"
(cd "$mirror/lessons/a" && sha256sum -c ../../../pins/lesson-a.sha256)

step "a JUnit report for CI (first lines)"
head -n 12 verify-broken.xml
if command -v xmllint >/dev/null && [ -d "$here/../../../shared/xsd" ]; then
    for xsd in "$here"/../../../shared/xsd/*.xsd; do
        xmllint --noout --schema "$xsd" verify-broken.xml
    done
fi

step "a manifest with mistakes: every one reported at once, compiler-style"
cat > broken.yaml <<'YAML'
version: 1
resources:
  - id: lesson-a
    base_url: ftp://cdn.example.com/a/
    checksumm: sha256
    slices:
      - path: ../../etc/passwd
        sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0
    depends_on: [lesson-b]
YAML
expect_status 65 validate broken.yaml
printf '\ndemo: done.\n'
