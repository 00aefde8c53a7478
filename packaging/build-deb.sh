#!/usr/bin/env bash
# Builds jobrun's Debian package from a jobrun binary, with dpkg-deb and Debian's layout:
#   packaging/build-deb.sh BIN OUTDIR      prints the .deb's path
# What `make install` installs (the stripped binary, its manual page and shell completions),
# the manifest schema, the examples, the systemd template units, maintainer scripts, and Depends from dpkg-shlibdeps
# plus the libraries jobrun loads with dlopen (libcurl; libxml2 and libsystemd recommended).
set -euo pipefail
bin=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
version=$("$bin" version | sed -n 's/^jobrun \([0-9][0-9A-Za-z.+~-]*\)$/\1/p')
[ -n "$version" ] || { echo "build-deb: cannot read the version of $bin" >&2; exit 1; }
arch=$(dpkg --print-architecture)
mkdir -p "$out"
stage=$(mktemp -d "${TMPDIR:-/tmp}/jobrun-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
pkg=$stage/pkg
# The changelog's date: the last commit's, so that the same tree gives the same package.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}

# What `make install` installs, under /usr, then as Debian lays it out: the manual page
# compressed, zsh's completion where Debian's zsh looks, bash's without a #! line (it is sourced).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$root" --no-print-directory install DESTDIR="$pkg" PREFIX=/usr INSTALL_BIN="$bin" >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$pkg/usr/bin/jobrun"
gzip -9n "$pkg/usr/share/man/man1/jobrun.1"
install -d -m 0755 "$pkg/DEBIAN" "$pkg/usr/share/doc/jobrun/examples" "$pkg/usr/share/zsh/vendor-completions" "$pkg/lib/systemd/system"
mv "$pkg/usr/share/zsh/site-functions/_jobrun" "$pkg/usr/share/zsh/vendor-completions/_jobrun"
rmdir "$pkg/usr/share/zsh/site-functions"
sed -i '1{/^#!/d}' "$pkg/usr/share/bash-completion/completions/jobrun"
install -m 0644 "$here/systemd/jobrun@.service" "$here/systemd/jobrun@.timer" "$pkg/lib/systemd/system/"
install -D -m 0644 "$root/docs/manifest.schema.json" "$pkg/usr/share/jobrun/manifest.schema.json"
install -m 0644 "$here/debian/copyright" "$pkg/usr/share/doc/jobrun/copyright"
{
    printf 'jobrun (%s) unstable; urgency=medium\n\n  * Version %s.\n\n' "$version" "$version"
    printf ' -- jobrun maintainers <maintainers@users.noreply.a-seed-115ed085.example>  %s\n' "$(LC_ALL=C date -u -R -d "@$epoch")"
} | gzip -9n > "$pkg/usr/share/doc/jobrun/changelog.gz"
# The examples as documents: nothing executable, the demo's site included.
cp -R "$root/examples/." "$pkg/usr/share/doc/jobrun/examples/"
find "$pkg/usr/share/doc/jobrun/examples" -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
install -m 0755 "$here/debian/postinst" "$here/debian/prerm" "$here/debian/postrm" "$pkg/DEBIAN/"

# Shared libraries jobrun links: dpkg-shlibdeps reads them from the binary (a Swift runtime
# outside Debian, as a debug build has, is left out).
mkdir -p "$stage/debian"
printf 'Source: jobrun\n\nPackage: jobrun\nArchitecture: any\n' > "$stage/debian/control"
shlibs=$(cd "$stage" && dpkg-shlibdeps --ignore-missing-info -O -e pkg/usr/bin/jobrun 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "build-deb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -k -s --apparent-size "$pkg" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" "$here/debian/control.in" > "$pkg/DEBIAN/control"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
deb="$out/jobrun_${version}_${arch}.deb"
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
