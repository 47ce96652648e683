#!/usr/bin/env bash
# Builds nfctag_VERSION_ARCH.deb in the project folder from the release binary and the files of
# `make dist` (man page, completions). Run through `make deb`, which sets VERSION, DIST, BIN and
# HELPER (nfctag-provision, installed as /usr/libexec/nfctag/nfctag-provision).
# Layout and lintian notes: docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:?}" "${DIST:?}" "${BIN:?}" "${HELPER:?}"
arch=$(dpkg --print-architecture)
out="nfctag_${VERSION}_${arch}.deb"
work=.build-release/deb
stage="$work/nfctag"
rm -rf "$work"
mkdir -p "$stage/DEBIAN"

# Files: the same `make install` as from source, with Debian's paths (zsh: vendor-completions).
make --no-print-directory -s install-files DESTDIR="$PWD/$stage" PREFIX=/usr \
  ZSHCOMPDIR=/usr/share/zsh/vendor-completions DIST="$DIST" BIN_RELEASE="$BIN" HELPER_RELEASE="$HELPER" >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/nfctag" \
  "$stage/usr/libexec/nfctag/nfctag-provision"
gzip -9n "$stage/usr/share/man/man1/nfctag.1"
doc="$stage/usr/share/doc/nfctag"
# docs/*.md came with install-files; Debian policy §12.3: documentation over 4 kB is gzipped.
find "$doc" -name '*.md' -size +4k -exec gzip -9n {} +
install -d "$doc"
install -m 644 packaging/copyright "$doc/copyright"
# Dated by the last commit, like the man page, so the same tree gives the same package.
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
sed -e "s/@VERSION@/$VERSION/" -e "s/@DATE@/$date/" packaging/changelog | gzip -9n > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

# Shared-library dependencies as Debian computes them (libc6, libstdc++6, libpcsclite1, …).
mkdir -p "$work/shlibs/debian"
printf 'Source: nfctag\n\nPackage: nfctag\nArchitecture: any\n' > "$work/shlibs/debian/control"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e "../nfctag/usr/bin/nfctag" \
  -e "../nfctag/usr/libexec/nfctag/nfctag-provision" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
rm -rf "$work/shlibs"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" \
  packaging/control.in > "$stage/DEBIAN/control"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +

dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
