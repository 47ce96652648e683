#!/usr/bin/env bash
# check-imports.sh: every `import` in Sources/<Module>/ names a module that docs/architecture.md's
# module table lets <Module> import ("may import" column), and every module under Sources/ has a
# row. `make test` runs it first; it fails with one line per import that breaks the table.
#
# The column names project modules and packages (`CSV.swift`, `SQLiteNIO`, …); words after a
# name in parentheses or backquotes say what for and are ignored. The platform's own modules
# (Glibc, Darwin, Dispatch, Synchronization, Foundation) are not in the table: which programs may
# link Foundation is the package test's check (`nm`), not this one.
set -euo pipefail
cd "$(dirname "$0")/.."
table=docs/architecture.md
system="Glibc Darwin Musl Dispatch Synchronization Foundation FoundationEssentials"

# module<TAB>allowed imports, one row per module, from the table's `| \`Module\` | owns | may import |`.
rows=$(awk -F'|' '
  /^\| `[A-Za-z0-9-]+` \|/ {
    name = $2; gsub(/[ `]/, "", name)
    allowed = $(NF - 1)
    gsub(/\([^)]*\)/, "", allowed)   # (what for)
    gsub(/`[^`]*`/, "", allowed)      # `a type`
    gsub(/—/, "", allowed)
    gsub(/,/, " ", allowed)
    print name "\t" allowed
  }' "$table")

# Package names in the column and the module a Swift file imports from them.
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
    echo "check-imports: $module has no row in $table's module table"
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
  echo "check-imports: $problems import(s) break the module table; change the import or the table (docs/architecture.md)"
  exit 1
fi
echo "check-imports: every import in Sources/ matches docs/architecture.md's module table"
