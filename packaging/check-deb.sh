#!/usr/bin/env bash
# Checks jobrun's Debian package as a user's machine would take it, without touching this one:
#   packaging/check-deb.sh [--allow-tag TAG]... DEB
# lintian reports no error (but the tags allowed); its dependencies resolve against this machine's
# (apt-get --simulate); `dpkg -i` into a throwaway root installs it (its scripts run without
# chroot, with DPKG_ROOT set, so no user is made here); from there `jobrun version` runs,
# `man -w jobrun` finds the page and `systemd-analyze verify` passes the template units for an
# instance; `dpkg -r` then removes every file it installed.
set -euo pipefail
allowed=()
while [ "${1:-}" = --allow-tag ]; do allowed+=("$2"); shift 2; done
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/jobrun-deb-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "check-deb: $*" >&2; exit 1; }

if command -v lintian >/dev/null; then
    suppress=()
    [ ${#allowed[@]} -eq 0 ] || suppress=(--suppress-tags "$(IFS=,; echo "${allowed[*]}")")
    lintian --tag-display-limit 0 "${suppress[@]}" "$deb" > "$work/lintian.txt" 2>&1 || true
    grep -v 'running with root privileges' "$work/lintian.txt" || true
    ! grep -q '^E: ' "$work/lintian.txt" || fail "lintian reports errors"
    echo "check-deb: lintian: no error ($(grep -c '^W: ' "$work/lintian.txt" || true) warnings)"
else
    fail "lintian is not installed (apt-get install lintian)"
fi

apt-get --simulate install "$deb" > "$work/apt.txt" 2>&1 || { cat "$work/apt.txt" >&2; fail "its dependencies do not resolve here"; }

root=$work/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
: > "$root/var/lib/dpkg/status"
dpkg=(dpkg --root="$root" --force-script-chrootless --force-depends --force-not-root)
"${dpkg[@]}" -i "$deb" > "$work/dpkg.txt" 2>&1 || { cat "$work/dpkg.txt" >&2; fail "dpkg -i failed"; }
"$root/usr/bin/jobrun" version | grep -q '^jobrun ' || fail "the installed jobrun does not run"
man -M "$root/usr/share/man" -w jobrun > /dev/null || fail "man -w jobrun finds no page"
units=$work/units
mkdir -p "$units"
for unit in jobrun@.service jobrun@.timer; do
    [ -f "$root/lib/systemd/system/$unit" ] || fail "no $unit"
    sed "s|/usr/bin/jobrun|$root/usr/bin/jobrun|g" "$root/lib/systemd/system/$unit" > "$units/$unit"
done
(cd "$units" && MANPATH=$root/usr/share/man systemd-analyze verify jobrun@mirror.service jobrun@mirror.timer) > "$work/verify.txt" 2>&1 ||
    { cat "$work/verify.txt" >&2; fail "systemd-analyze verify failed"; }
[ ! -s "$work/verify.txt" ] || { cat "$work/verify.txt" >&2; fail "systemd-analyze verify warned"; }
"${dpkg[@]}" -r jobrun > "$work/remove.txt" 2>&1 || { cat "$work/remove.txt" >&2; fail "dpkg -r failed"; }
left=$(find "$root" -path "$root/var/lib/dpkg" -prune -o -type f -print)
[ -z "$left" ] || fail "dpkg -r left files: $left"
echo "check-deb: $(basename "$deb"): installs, runs, has its manual page and valid units, and removes cleanly"
