#!/usr/bin/env bash
# undocumented-public.sh [MODULE...]: lists the public and open declarations of the library
# products' modules (by default NDEF PCSC NFCSession CoreNFC NFCReaders NFCEmulator NFCTestSupport, the
# .library products of Package.swift) that have no doc comment, as FILE:LINE: declaration, then
# one count per module. A declaration is documented when the line above it (attribute lines such
# as `@discardableResult` skipped) is a `///` line or ends a `/** … */` comment. Not counted:
# imports and extension headers (their members are), declarations marked
# `@available(*, unavailable…)` (renamed C names: not API), and the protocol witnesses whose
# meaning the protocol states (`==`, `hash(into:)`, `description`, `debugDescription`,
# `rawValue`, `init(rawValue:)`). Exits 1 when something is undocumented.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(NDEF PCSC NFCSession CoreNFC NFCReaders NFCEmulator NFCTestSupport)
total=0
counts=""
for module in "${modules[@]}"; do
  [ -d "Sources/$module" ] || { echo "undocumented-public: no module Sources/$module" >&2; exit 2; }
  found=$(find "Sources/$module" -name '*.swift' -print0 | sort -z | xargs -0 awk '
    FNR == 1 { documented = 0; unavailable = 0 }
    # A declaration: optional attributes and modifiers, then public or open, not an import or extension.
    /^[ \t]*(@[A-Za-z_]+(\([^)]*\))?[ \t]+)*((final|static|class|override|nonisolated|indirect|convenience|required|mutating|nonmutating|borrowing|consuming)[ \t]+)*(public|open)([ \t(]|$)/ \
        && !/^[ \t]*(@_exported[ \t]+)?(public[ \t]+)?import[ \t]/ && !/(public|open)[ \t]+extension[ \t]/ {
      witness = /static func == ?\(|func hash\(into|var (debugD|d)escription: String|(let|var) rawValue:|init\(rawValue:/
      if (!documented && !unavailable && !witness) { line = $0; sub(/^[ \t]+/, "", line); print FILENAME ":" FNR ": " line }
      documented = 0; unavailable = 0
      next
    }
    /^[ \t]*@available\(\*, *unavailable/ { unavailable = 1; next }
    /^[ \t]*\/\/\/|\*\/[ \t]*$/ { documented = 1; next }
    /^[ \t]*@[A-Za-z_]+(\([^)]*\))?[ \t]*$/ { next }   # an attribute line keeps the comment above it
    { documented = 0; unavailable = 0 }
  ' || true)
  n=0
  if [ -n "$found" ]; then echo "$found"; n=$(printf '%s\n' "$found" | wc -l); fi
  counts+=$(printf '%-15s %4d undocumented public declarations' "$module" "$n")$'\n'
  total=$((total + n))
done
printf '%s' "$counts"
[ "$total" -eq 0 ]
