#!/usr/bin/env bash
# bench/debian.sh BINARY: planning a mirror of Debian bookworm's main amd64 from its catalog. A
# private nginx on 127.0.0.1:8195 serves a repository whose Packages is bookworm's own (from this
# machine's apt lists, /var/lib/apt/lists, when they hold it; else 63,000 made-up stanzas of the
# same shape): once as Debian publishes it (the real InRelease, verified with the Debian archive
# keyring, and the uncompressed index it signs), once as Packages.xz (compressed here, signed by
# a key of the benchmark's own, bench/../Tests/Support/debrepo.sh). For each, `jobrun plan`
# runs RUNS times with nothing kept (InRelease and the index fetched, verified, decompressed,
# read; 63,000 files planned) and RUNS times with the copy an apply keeps (a 304, the index by
# hash): wall time and peak RSS by GNU time, medians.
#   Env: RUNS (3), PREFIX (/tmp/jobrun-bench/debian).
set -euo pipefail
bin="$(realpath "${1:?usage: bench/debian.sh BINARY}")"
runs="${RUNS:-3}"
prefix="${PREFIX:-/tmp/jobrun-bench/debian}"
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
need_gnu_time
lists=/var/lib/apt/lists
real_release=$lists/deb.debian.org_debian_dists_bookworm_InRelease
real_packages=$lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4
archive_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
rm -rf "$prefix/repos" "$prefix/work"
mkdir -p "$prefix"/{repos,work,keys}

real=no
packages=$prefix/work/Packages
if [[ -s $real_release && -s $real_packages && -s $archive_keyring ]] && command -v lz4 >/dev/null; then
    lz4 -dc "$real_packages" > "$packages"
    real=yes
else
    python3 - "$packages" <<'PY'
import hashlib, sys
with open(sys.argv[1], "w") as out:
    for i in range(63000):
        name = "package%05d" % i
        out.write("Package: %s\nVersion: 1.%d-1\nInstalled-Size: %d\nMaintainer: Someone <someone@example.org>\n" % (name, i, 100 + i % 900))
        out.write("Architecture: amd64\nDepends: libc6 (>= 2.36), libfoo%d (>= 1.0)\nDescription: a package of the benchmark\n" % (i % 50))
        out.write("Homepage: https://example.org/%s\nDescription-md5: %s\nTag: role::program\nSection: misc\nPriority: optional\n" % (name, hashlib.md5(name.encode()).hexdigest()))
        out.write("Filename: pool/main/p/%s/%s_1.%d-1_amd64.deb\nSize: %d\nMD5sum: %s\nSHA256: %s\n\n" % (
            name, name, i, 1000 + i, hashlib.md5(name.encode()).hexdigest(), hashlib.sha256(name.encode()).hexdigest()))
PY
fi
count=$(grep -c '^Package:' "$packages")

# The xz repository, signed by the benchmark's key.
[[ -s $prefix/keys/key.gpg ]] || bash "$here/../Tests/Support/debrepo.sh" key "$prefix/keys" >/dev/null 2>&1
xzrepo=$prefix/repos/xz/debian
mkdir -p "$xzrepo/dists/bookworm/main/binary-amd64"
xz -T1 -6 -c "$packages" > "$xzrepo/dists/bookworm/main/binary-amd64/Packages.xz"
{
    printf 'Suite: oldstable\nCodename: bookworm\nDate: %s\nArchitectures: amd64\nComponents: main\nSHA256:\n' "$(LC_ALL=C date -u -R | sed 's/+0000/UTC/')"
    f=main/binary-amd64/Packages.xz
    printf ' %s %s %s\n' "$(sha256sum "$xzrepo/dists/bookworm/$f" | cut -d' ' -f1)" "$(stat -c %s "$xzrepo/dists/bookworm/$f")" "$f"
} > "$xzrepo/dists/bookworm/Release"
GNUPGHOME=$prefix/keys/gnupg gpg --batch --quiet --pinentry-mode loopback --passphrase '' --clearsign \
    -o "$xzrepo/dists/bookworm/InRelease" "$xzrepo/dists/bookworm/Release"
GNUPGHOME=$prefix/keys/gnupg gpgconf --kill all 2>/dev/null || true

if [[ $real == yes ]]; then
    realrepo=$prefix/repos/real/debian
    mkdir -p "$realrepo/dists/bookworm/main/binary-amd64"
    cp "$real_release" "$realrepo/dists/bookworm/InRelease"
    cp "$packages" "$realrepo/dists/bookworm/main/binary-amd64/Packages"
fi

private_nginx "$prefix" "access_log off;" "sendfile on;" "server { listen 127.0.0.1:8195; root $prefix/repos; }"

# run KIND KEYRING LABEL: RUNS plans with nothing kept, then RUNS with the copy kept.
run() {
    local kind=$1 keyring=$2 label=$3 work=$prefix/work/$1
    rm -rf "$work" && mkdir -p "$work"
    cat > "$work/m.yaml" <<YAML
version: 1
defaults: {output: ./mirror}
resources:
  - id: debian
    base_url: http://127.0.0.1:8195/$kind/debian/
    slices_from: {format: debian, suite: bookworm, architectures: [amd64], keyring: $keyring}
YAML
    local cold=() warm=() line
    for _ in $(seq "$runs"); do
        rm -rf "$work/mirror"
        line=$(cd "$work" && /usr/bin/time -f '%e %M' "$bin" plan m.yaml -q 2>&1 >/dev/null | tail -1)
        cold+=("$line")
    done
    # What an apply keeps of the catalog (InRelease, its validators, the index by hash).
    (cd "$work" && JOBRUN_PROGRESS=none "$bin" apply m.yaml -q --resource debian --deadline 1s --offline-wait 0 >/dev/null 2>&1 || true)
    [[ -s $work/mirror/.jobrun/catalogs/debian/meta.json ]] || die "apply kept no catalog"
    for _ in $(seq "$runs"); do
        line=$(cd "$work" && /usr/bin/time -f '%e %M' "$bin" plan m.yaml -q 2>&1 >/dev/null | tail -1)
        warm+=("$line")
    done
    median() { printf '%s\n' "$@" | sort -n -k1,1 | awk -v n="$#" 'NR == int((n + 1) / 2)'; }
    local c w
    c=$(median "${cold[@]}") w=$(median "${warm[@]}")
    printf '%-44s  fetched: %6.2f s %5d MiB   kept: %6.2f s %5d MiB\n' "$label" \
        "${c% *}" "$(( ${c#* } / 1024 ))" "${w% *}" "$(( ${w#* } / 1024 ))"
}

echo "$count packages ($( [[ $real == yes ]] && echo "bookworm main amd64, from $lists" || echo made up)), $runs runs each, medians"
run xz "$prefix/keys/key.gpg" "Packages.xz ($(stat -c %s "$xzrepo/dists/bookworm/main/binary-amd64/Packages.xz") B), own key"
if [[ $real == yes ]]; then
    run real "$archive_keyring" "bookworm's InRelease and Packages, Debian's key"
fi
