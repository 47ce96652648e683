#!/usr/bin/env bash
# check-imports.sh: every `import` in Sources/<Module>/ names a module that docs/architecture.md's
# module list lets <Module> import (the "May import:" paragraph of its section, `### `Module``),
# and every module under Sources/ has a section. `make test` runs it first; it fails with one line
# per import that breaks the list.
#
# The paragraph names project modules and packages (`CSV.swift`, `SQLiteNIO`, …); words after a
# name in parentheses or backquotes say what for and are ignored, and so is "nothing". The platform's
# own modules (Glibc, Darwin, Dispatch, Synchronization, Foundation) are not listed: which programs
# may link Foundation is the package test's check (`nm`), not this one. Then it checks that the C
# library and tests for an OS appear only in each module's Platform.swift (see the end).
set -euo pipefail
cd "$(dirname "$0")/.."
table=docs/architecture.md
system="Glibc Darwin Musl Dispatch Synchronization Foundation FoundationEssentials"

# module<TAB>allowed imports, one line per module, from each `### `Module`` section's "May import:"
# paragraph (up to the blank line after it).
rows=$(awk '
  function emit() {
    gsub(/\([^)]*\)/, "", allowed)   # (what for)
    gsub(/`[^`]*`/, "", allowed)      # `a type`
    gsub(/—/, "", allowed)
    gsub(/,/, " ", allowed)
    gsub(/\.( |$)/, " ", allowed)     # the full stop, not the one in CSV.swift
    gsub(/(^| )nothing( |$)/, " ", allowed)
    print name "\t" allowed
    name = ""; collecting = 0
  }
  /^### `[A-Za-z0-9-]+`$/ { name = $0; gsub(/^### |`/, "", name); collecting = 0; next }
  name != "" && !collecting && /^May import:/ { collecting = 1; allowed = substr($0, 12); next }
  collecting && /^$/ { emit(); next }
  collecting { allowed = allowed " " $0; next }
  END { if (collecting) emit() }' "$table")

# Package names in the list and the module a Swift file imports from them.
module_of() {
  case "$1" in
    CSV.swift) echo CSV ;;
    swift-crypto) echo Crypto ;;
    sqlite-nio) echo SQLiteNIO ;;
    postgres-nio) echo PostgresNIO ;;
    swift-log) echo Logging ;;
    swift-argument-parser) echo ArgumentParser ;;
    *) echo "$1" ;;
  esac
}

problems=0
for dir in Sources/*/; do
  module=$(basename "$dir")
  row=$(printf '%s\n' "$rows" | awk -F'\t' -v m="$module" '$1 == m { print $2 }')
  if ! printf '%s\n' "$rows" | awk -F'\t' -v m="$module" '$1 == m { found = 1 } END { exit !found }'; then
    echo "check-imports: $module has no section in $table's module list"
    problems=$((problems + 1))
    continue
  fi
  allowed=" $system "
  for word in $row; do allowed="$allowed$(module_of "$word") "; done
  # file:line:import Name, for every import declaration (attributes and access levels allowed).
  while IFS= read -r hit; do
    imported=$(printf '%s\n' "$hit" | sed -E 's/.*import +((class|struct|enum|func|protocol|var|let|typealias) +)?([A-Za-z_][A-Za-z0-9_]*).*/\3/')
    [ "$imported" = "$module" ] && continue
    case "$allowed" in
      *" $imported "*) ;;
      *) echo "check-imports: ${hit%%:*import*}: $module imports $imported, which $table does not let it import"
         problems=$((problems + 1)) ;;
    esac
  done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|private|fileprivate)[[:space:]]+)?import[[:space:]]' \
             --include='*.swift' "$dir" || true)
done
if [ "$problems" -gt 0 ]; then
  echo "check-imports: $problems import(s) break the module list; change the import or the list (docs/architecture.md)"
  exit 1
fi
echo "check-imports: every import in Sources/ matches docs/architecture.md's module list"

# Platform code lives in one file per module, its `Platform.swift` (docs/platforms.md): no other
# Swift file under Sources/ imports the C library (Glibc, Musl, Darwin, ucrt, WinSDK), names it
# (`Glibc.write`), or tests for it or for an OS (`canImport(Glibc|Darwin|Musl)`,
# `os(Linux|macOS|Windows)`). A module has at most one Platform.swift. Tests of what is not the OS
# (`canImport(FoundationEssentials)`) stay where they are. CoreNFC is the one exception: each of its
# files is wrapped whole in `#if os(Linux)` (line 1), because on Apple platforms `import CoreNFC` is
# Apple's framework; that line chooses the product, not the C library, and any other test for an OS
# in CoreNFC still fails.
platform_problems=0
for dir in Sources/*/; do
  module=$(basename "$dir")
  count=$(find "$dir" -name Platform.swift | wc -l)
  if [ "$count" -gt 1 ]; then
    echo "check-imports: $module has $count Platform.swift files; a module has one"
    platform_problems=$((platform_problems + 1))
  fi
done
while IFS= read -r hit; do
  file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; text=${rest#*:}
  [ "$(basename "$file")" = Platform.swift ] && continue
  if [ "${file#Sources/CoreNFC/}" != "$file" ] && [ "$line" = 1 ] && [ "$text" = "#if os(Linux)" ]; then continue; fi
  echo "check-imports: $file:$line: platform code outside the module's Platform.swift: $text"
  platform_problems=$((platform_problems + 1))
done < <(grep -rnE '(canImport|os)\((Glibc|Darwin|Musl|Linux|macOS|Windows)\)|^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal|private|fileprivate)[[:space:]]+)?import[[:space:]]+(Glibc|Darwin|Musl|ucrt|WinSDK)([^A-Za-z0-9_]|$)|(^|[^A-Za-z0-9_.])(Glibc|Darwin|Musl|ucrt|WinSDK)\.[A-Za-z_]' \
           --include='*.swift' Sources || true)
if [ "$platform_problems" -gt 0 ]; then
  echo "check-imports: $platform_problems place(s) hold platform code outside a Platform.swift; move it there (docs/platforms.md)"
  exit 1
fi
echo "check-imports: platform code in Sources/ is in each module's Platform.swift only"
