#!/usr/bin/env bash
# `make package-test` (part of `make test`): install into a scratch root and check what landed —
# the binary runs and holds no Foundation, SwiftNIO or BoringSSL, provision runs through
# nfctag-provision, `man -l` renders a page listing every subcommand and docs/exit-codes.md's
# statuses, the documentation the page names is installed, bash and fish complete
# subcommands and options, zsh reads its script —, uninstall leaves nothing, then `make deb`,
# its control fields, `dpkg -x` into another scratch root and `nfctag --version` and provision
# from there, and lintian (no error, no warning). One release build serves install and deb.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...: one line per check, counted.
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then
    passed=$((passed + 1)); echo "ok    $what"
  else
    failed=$((failed + 1)); echo "FAIL  $what"
  fi
}
contains() { grep -q -E -e "$2" <<<"$1"; }  # contains TEXT EXTENDED-REGEX
lacks() { ! grep -q -E -e "$2" <<<"$1"; }  # lacks TEXT EXTENDED-REGEX
equals() { [ "$1" = "$2" ]; }

version=$(sed -n 's/^ *version: "\([^"]*\)",$/\1/p' Sources/nfctag/NFCTool.swift)
arch=$(dpkg --print-architecture)
root=$(mktemp -d /tmp/nfctag-install.XXXXXX)
unpacked=$(mktemp -d /tmp/nfctag-deb.XXXXXX)
trap 'rm -rf "$root" "$unpacked"' EXIT

echo "== make install DESTDIR=$root PREFIX=/usr/local"
start=$(date +%s)
if ! make --no-print-directory -s install DESTDIR="$root" PREFIX=/usr/local >/tmp/nfctag-package-build.log 2>&1; then
  tail -30 /tmp/nfctag-package-build.log
  echo "0 passed, 1 failed"
  exit 1
fi
echo "   (release build, man page and completions: $(( $(date +%s) - start )) s)"
p="$root/usr/local"
check "nfctag --version from the install prints $version" equals "$("$p/bin/nfctag" --version)" "$version"
check "the installed binary links no Swift runtime library (static)" \
  bash -c "! ldd '$p/bin/nfctag' | grep -q -e libswift -e libFoundation -e libdispatch"
# The runtime is static, so ldd cannot tell: nfctag's symbols show that Foundation (and its ICU),
# SwiftNIO, BoringSSL and SQLite stayed out; they are nfctag-provision's (provision, ledger).
check "the installed nfctag holds no Foundation, ICU, SwiftNIO, BoringSSL or SQLite code (nm)" \
  bash -c "nm --defined-only '$p/bin/nfctag' | grep -q -F '9NFCTagCLI' && \
    ! nm --defined-only '$p/bin/nfctag' | grep -q -E '\\\$s10Foundation|ucal_open|7NIOCore|CCryptoBoringSSL|9SQLiteNIO|sqlite3_open'"
provision_checks() {  # provision_checks WHERE BIN: nfctag's hand-over to nfctag-provision from an installed tree.
  check "nfctag provision --help from $1 lists its options" contains "$("$2" provision --help 2>&1)" "--secret-env"
  check "a provision usage error from $1 is one line, exit 64 (through nfctag-provision)" \
    equals "$(env -u NFCTAG_UNSET_SECRET "$2" provision --count 1 --url 'https://e.com/{n}' --protect \
             --secret-env NFCTAG_UNSET_SECRET 2>&1; echo "exit $?")" \
    "nfctag: the environment variable NFCTAG_UNSET_SECRET (the provisioning secret, --secret-env) is not set
exit 64"
  check "nfctag ledger status from $1 runs (a missing ledger: exit 66)" \
    equals "$("$2" ledger status /nonexistent/l.sqlite >/dev/null 2>&1; echo $?)" "66"
}
check "installed libexec/nfctag/nfctag-provision" test -x "$p/libexec/nfctag/nfctag-provision"
provision_checks "the install" "$p/bin/nfctag"
for f in share/man/man1/nfctag.1 share/bash-completion/completions/nfctag share/zsh/site-functions/_nfctag \
         share/fish/vendor_completions.d/nfctag.fish; do
  check "installed $f" test -s "$p/$f"
done

page=$(MANWIDTH=100 man -l "$p/share/man/man1/nfctag.1" 2>/dev/null | col -bx)
check "man -l renders NAME with the tool's abstract" contains "$page" "nfctag — Read, write and emulate NFC Forum tags"
check "man --warnings -l reports nothing" equals "$(man --warnings -l "$p/share/man/man1/nfctag.1" 2>&1 >/dev/null)" ""
# Every subcommand `nfctag --help` lists is an item of the page.
subcommands=$("$p/bin/nfctag" --help | sed -n '/^SUBCOMMANDS:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
check "nfctag --help lists at least 10 subcommands" test "$(wc -w <<<"$subcommands")" -ge 10
for sub in $subcommands ndef\ decode ndef\ encode; do
  check "man page describes '${sub##* }'" contains "$page" "^ *${sub##* }( |\$)"
done
# EXIT STATUS is docs/exit-codes.md's table (scripts/man-exit-status.sh), not the plugin's one line.
exit_section=$(sed -n '/^EXIT STATUS/,/^[A-Z]/p' <<<"$page")
check "man page EXIT STATUS is not the generic '>0 if an error occurs'" lacks "$exit_section" "if an error occurs"
for row in $(sed -n 's/^| \([0-9][0-9]*\) | \([A-Z_]*\) |.*/\1:\2/p' docs/exit-codes.md); do
  check "man page EXIT STATUS lists ${row%%:*} ${row#*:}" contains "$exit_section" "^ +${row%%:*} +${row#*:}: "
done
docdir="$p/share/doc/nfctag"
for f in docs/*.md; do
  check "installed share/doc/nfctag/${f#docs/}" test -s "$docdir/${f#docs/}"
done
# Every documentation file a help text or the man page names is installed.
for name in $(grep -o -E '[a-z][a-z0-9-]*\.md' "$p/share/man/man1/nfctag.1" | sort -u); do  # the source: no hyphenation
  check "the man page names $name, and it is installed" test -s "$docdir/$name"
done
check "--reader help gives the simulator's whole syntax (@FACE, +feed=N)" \
  contains "$("$p/bin/nfctag" read --help)" "sim:KIND\[/KIND\.\.\.\]\[@FACE\]\+feed=N"

bash_script="$p/share/bash-completion/completions/nfctag"
check "bash completion registers _nfctag" \
  equals "$(bash -c "source '$bash_script'; complete -p nfctag")" "complete -o filenames -F _nfctag nfctag"
check "bash completes 'nfctag nd' to ndef" equals "$(bash -c "source '$bash_script'; COMP_WORDS=(nfctag nd); \
  COMP_CWORD=1; COMP_LINE='nfctag nd'; COMP_POINT=9; _nfctag nfctag nd nfctag; echo \"\${COMPREPLY[*]}\"")" "ndef"
check "bash completion has no #! line (lintian)" bash -c "! head -1 '$bash_script' | grep -q '^#!'"
fish_script="$p/share/fish/vendor_completions.d/nfctag.fish"
check "fish completes 'nfctag ndef decode --for' to --format" \
  contains "$(fish -c "source '$fish_script'; complete -C 'nfctag ndef decode --for'")" "^--format"
zsh_script="$p/share/zsh/site-functions/_nfctag"
check "zsh completion parses (zsh -n) and declares #compdef nfctag" \
  bash -c "zsh -n '$zsh_script' && head -1 '$zsh_script' | grep -q '^#compdef nfctag'"

echo "== make uninstall"
make --no-print-directory -s uninstall DESTDIR="$root" PREFIX=/usr/local >/dev/null 2>&1
check "make uninstall leaves no file" equals "$(find "$root" -type f)" ""

echo "== make deb"
deb="nfctag_${version}_${arch}.deb"
rm -f "$deb"
start=$(date +%s)
if ! make --no-print-directory -s deb >/tmp/nfctag-package-build.log 2>&1; then
  tail -30 /tmp/nfctag-package-build.log
  failed=$((failed + 1))
  echo "FAIL  make deb"
else
  echo "   (reusing the release build: $(( $(date +%s) - start )) s)"
  check "make deb writes $deb" test -s "$deb"
  check "Depends names pcscd and libpcsclite1" \
    bash -c "dpkg-deb -f '$deb' Depends | grep -q 'pcscd' && dpkg-deb -f '$deb' Depends | grep -q 'libpcsclite1'"
  # libcrypto is loaded with dlopen (the originality check), so dpkg-shlibdeps cannot see it.
  check "Depends names libssl3 (OpenSSL's libcrypto, loaded at run time)" \
    bash -c "dpkg-deb -f '$deb' Depends | grep -q 'libssl3 | libssl3t64'"
  check "Recommends libccid" equals "$(dpkg-deb -f "$deb" Recommends)" "libccid"
  check "Version is $version" equals "$(dpkg-deb -f "$deb" Version)" "$version"
  dpkg -x "$deb" "$unpacked"
  check "nfctag --version from dpkg -x prints $version" equals "$("$unpacked/usr/bin/nfctag" --version)" "$version"
  provision_checks "dpkg -x" "$unpacked/usr/bin/nfctag"
  check "nfctag ndef decode runs from dpkg -x" equals \
    "$("$unpacked/usr/bin/nfctag" ndef decode d101085402656e68656c6c6f)" "[0] Text (en, utf-8): hello"
  check "the package's man page renders (man -l on the .gz)" \
    contains "$(MANWIDTH=100 man -l "$unpacked/usr/share/man/man1/nfctag.1.gz" 2>/dev/null | col -bx)" "^NAME"
  for f in usr/libexec/nfctag/nfctag-provision usr/share/bash-completion/completions/nfctag \
           usr/share/zsh/vendor-completions/_nfctag \
           usr/share/fish/vendor_completions.d/nfctag.fish usr/share/doc/nfctag/copyright \
           usr/share/doc/nfctag/changelog.gz usr/share/doc/nfctag/json-format.md.gz \
           usr/share/doc/nfctag/exit-codes.md.gz; do
    check "the package holds /$f" test -s "$unpacked/$f"
  done
  check "apt resolves the package (apt-get install -s ./$deb)" \
    bash -c "apt-get install -s './$deb' 2>/dev/null | grep -q '^Conf nfctag ($version'"
  check "lintian: no error, no warning" lintian --fail-on error,warning "$deb"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
