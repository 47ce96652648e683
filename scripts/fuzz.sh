#!/usr/bin/env bash
# libFuzzer over the NDEF decoder, the typed records and the message JSON parser.
# Usage: scripts/fuzz.sh [SECONDS]   (make fuzz FUZZ_SECONDS=60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=.build-fuzz
mkdir -p "$work/src" "$work/corpus"
rm -f "$work/src"/*.swift
# One module: NDEF + Hex + NDEFJSON (their imports of each other dropped) + the entry point.
cp Sources/NDEF/*.swift "$work/src/"
for f in Sources/Hex/*.swift; do cp "$f" "$work/src/Hex_$(basename "$f")"; done
for f in Sources/NDEFJSON/*.swift; do
  sed -e '/^import NDEF$/d' -e '/^@_exported import Hex$/d' "$f" > "$work/src/JSON_$(basename "$f")"
done
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name NDEFJSON \
  "$work"/src/*.swift Fuzz/NDEFFuzz.swift -o "$work/ndef-fuzz"
# Seeds: spec examples and JSON.
printf '\xd1\x01\x0b\x54\x02\x65\x6e\x65\x6c\x65\x70\x68\x61\x6e\x74' > "$work/corpus/text"
printf '\xd1\x01\x0d\x55\x01example.com/' > "$work/corpus/uri"
printf '\xb5\x00\x02ab\x56\x00\x02cd' > "$work/corpus/chunks"
printf '{"records":[{"text":{"text":"Hi"}},{"uri":"https://a.org"}]}' > "$work/corpus/json"
"$work/ndef-fuzz" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$work/corpus" 2>&1 | tail -n 25
