#!/usr/bin/env bash
# man-exit-status.sh EXIT-CODES.md < nfctag.1 > nfctag.1: replaces the EXIT STATUS section the
# generate-manual plugin writes (".Ex -std": "0 on success, >0 if an error occurs") with the
# table of docs/exit-codes.md, one ".It" per status. Run by `make dist`; checked by
# scripts/test-package.sh. The page stays ASCII (the plugin keeps nothing else): the few
# typographic characters of the Markdown become ASCII, Markdown code and links plain text.
set -euo pipefail
table=${1:?usage: man-exit-status.sh EXIT-CODES.md < PAGE > PAGE}
[ -r "$table" ] || { echo "man-exit-status: cannot read $table" >&2; exit 66; }

# mdoc body lines for the first table of the Markdown (code | name | Core NFC codes | when).
items=$(awk -F'|' '
  /^\| *code *\| *name *\|/ { inside = 1; next }
  inside && /^\|[-| ]+\|$/ { next }
  inside && !/^\|/ { exit }
  inside {
    code = $2; name = $3; when = $5
    gsub(/^ +| +$/, "", code); gsub(/^ +| +$/, "", name); gsub(/^ +| +$/, "", when)
    printf ".It %s\n%s: %s\n", code, name, when
  }' "$table" |
  sed -e 's/\\/\\e/g' \
      -e 's/\[\([^]]*\)\]([^)]*)/\1/g' -e 's/`//g' \
      -e 's/…/.../g' -e 's/–/-/g' -e 's/—/--/g' -e 's/→/->/g' \
      -e '/^\.It /!s/^/\\\&/')
[ -n "$items" ] || { echo "man-exit-status: no exit status table in $table" >&2; exit 65; }
if LC_ALL=C grep -q '[^ -~]' <<<"$items"; then
  echo "man-exit-status: $table holds characters the page cannot keep:" >&2
  LC_ALL=C grep -o '[^ -~]*' <<<"$items" | sort -u >&2
  exit 65
fi

section=$(printf '%s\n' \
  '.Sh "EXIT STATUS"' \
  '\&nfctag follows BSD sysexits.h. Every failure prints exactly one line on standard error, starting with nfctag: .' \
  '.Bl -tag -width 4n' \
  "$items" \
  '.El' \
  '.Pp' \
  '\&The statuses of ndef decode --lines, send, ledger and provision: exit-codes.md in the documentation folder (/usr/share/doc/nfctag, or PREFIX/share/doc/nfctag after make install).')

# Everything before the plugin's EXIT STATUS, the table, then any section after it.
# (The section goes through the environment: awk -v would read its backslashes as escapes.)
SECTION=$section awk '
  /^\.Sh "EXIT STATUS"/ { print ENVIRON["SECTION"]; skipping = 1; replaced = 1; next }
  skipping && /^\.Sh / { skipping = 0 }
  !skipping { print }
  END { if (!replaced) { print "man-exit-status: the page has no EXIT STATUS section" > "/dev/stderr"; exit 65 } }'
