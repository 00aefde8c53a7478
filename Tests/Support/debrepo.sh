#!/usr/bin/env bash
# debrepo.sh: makes a small signed Debian repository for the catalog tests, as a real one is laid
# out: pool/ with two packages built by dpkg-deb, dists/SUITE/main/binary-amd64/Packages(.xz),
# and dists/SUITE/InRelease clearsigned by a key of its own (gpg, in a private GNUPGHOME).
#
#   debrepo.sh key DIR                 a signing key in DIR/gnupg, its public keyring DIR/key.gpg
#                                      (and DIR/key.asc, armored)
#   debrepo.sh build DIR REPO [VERSION] the repository in REPO, signed with DIR's key; VERSION
#                                      (default 1) goes into the packages' contents; with BYHASH=1
#                                      the Release says Acquire-By-Hash and the indexes are also
#                                      under by-hash/SHA256/
#   debrepo.sh sign DIR REPO [GPGARGS]  signs REPO's Release again into InRelease (extra gpg
#                                      arguments: --faked-system-time, --default-sig-expire)
#   debrepo.sh detach DIR FILE         an armored detached signature of FILE, FILE.asc
#   debrepo.sh stop DIR                stops DIR's gpg-agent
set -euo pipefail
cmd=$1 dir=$2
export GNUPGHOME=$dir/gnupg
gpg=(gpg --batch --quiet --no-tty --pinentry-mode loopback --passphrase '')

case "$cmd" in
key)
    mkdir -p "$GNUPGHOME"
    chmod 700 "$GNUPGHOME"
    # Made "in 2019": a signature the tests date in 2020 is then not older than its key.
    "${gpg[@]}" --faked-system-time 20190101T000000 --quick-gen-key 'jobrun test archive <archive@example.org>' ed25519 sign never
    "${gpg[@]}" --export > "$dir/key.gpg"
    "${gpg[@]}" --armor --export > "$dir/key.asc"
    ;;
build)
    repo=$3 version=${4:-1}
    suite=stable codename=jobrun-test
    rm -rf "$repo"
    mkdir -p "$repo/dists/$codename/main/binary-amd64" "$dir/debs"
    packages=$repo/dists/$codename/main/binary-amd64/Packages
    : > "$packages"
    for name in hello-jobrun extra-jobrun; do
        tree=$dir/debs/$name
        rm -rf "$tree"
        mkdir -p "$tree/DEBIAN" "$tree/usr/share/doc/$name"
        printf 'Package: %s\nVersion: %s.0\nArchitecture: amd64\nMaintainer: jobrun tests <t@example.org>\nDescription: a test package\n' \
            "$name" "$version" > "$tree/DEBIAN/control"
        echo "$name version $version" > "$tree/usr/share/doc/$name/README"
        letter=${name:0:1}
        mkdir -p "$repo/pool/main/$letter/$name"
        deb=pool/main/$letter/$name/${name}_${version}.0_amd64.deb
        dpkg-deb --root-owner-group -Zxz --build "$tree" "$repo/$deb" > /dev/null
        size=$(stat -c %s "$repo/$deb")
        sum=$(sha256sum "$repo/$deb" | cut -d' ' -f1)
        printf 'Package: %s\nVersion: %s.0\nArchitecture: amd64\nMaintainer: jobrun tests <t@example.org>\nFilename: %s\nSize: %s\nSHA256: %s\nDescription: a test package\n\n' \
            "$name" "$version" "$deb" "$size" "$sum" >> "$packages"
    done
    xz -k -9 "$packages"
    release=$repo/dists/$codename/Release
    {
        echo "Origin: jobrun-test"
        echo "Label: jobrun-test"
        echo "Suite: $suite"
        echo "Codename: $codename"
        echo "Date: $(LC_ALL=C date -u -R | sed 's/+0000/UTC/')"
        echo "Valid-Until: $(LC_ALL=C date -u -R -d '+7 days' | sed 's/+0000/UTC/')"
        echo "Architectures: amd64"
        echo "Components: main"
        [ "${BYHASH:-0}" = 1 ] && echo "Acquire-By-Hash: yes"
        echo "SHA256:"
        for f in main/binary-amd64/Packages main/binary-amd64/Packages.xz; do
            echo " $(sha256sum "$repo/dists/$codename/$f" | cut -d' ' -f1) $(stat -c %s "$repo/dists/$codename/$f") $f"
        done
    } > "$release"
    if [ "${BYHASH:-0}" = 1 ]; then
        mkdir -p "$repo/dists/$codename/main/binary-amd64/by-hash/SHA256"
        for f in Packages Packages.xz; do
            src=$repo/dists/$codename/main/binary-amd64/$f
            cp "$src" "$repo/dists/$codename/main/binary-amd64/by-hash/SHA256/$(sha256sum "$src" | cut -d' ' -f1)"
        done
    fi
    "${gpg[@]}" --clearsign -o "$repo/dists/$codename/InRelease" "$release"
    ;;
sign)
    repo=$3
    shift 3
    rm -f "$repo/dists/jobrun-test/InRelease"
    "${gpg[@]}" "$@" --clearsign -o "$repo/dists/jobrun-test/InRelease" "$repo/dists/jobrun-test/Release"
    ;;
detach)
    rm -f "$3.asc"
    "${gpg[@]}" --armor --detach-sign -o "$3.asc" "$3"
    ;;
stop)
    gpgconf --kill all 2>/dev/null || true
    ;;
*)
    echo "debrepo.sh: unknown command '$cmd'" >&2
    exit 64
    ;;
esac
