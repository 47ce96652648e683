#!/usr/bin/env bash
# The main job on a machine without hardware: a virtual NTAG215 behind a virtual ACR122U, seen
# by the real pcscd through vpcd; nfctag writes a URL to it and scans it back.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product nfctag >/dev/null
bin=$(swift build --show-bin-path)/nfctag
image=$(mktemp -d)/demo-ntag215.bin
reader="Virtual PCD 00 00"
if [ -n "${NFCTAG_READER:-}" ]; then reader="$NFCTAG_READER"; fi

echo "+ nfctag emulate --tag ntag215 --image $image --vpcd 127.0.0.1:35963 &"
"$bin" emulate --tag ntag215 --image "$image" --vpcd 127.0.0.1:35963 &
emulator=$!
trap 'kill -INT $emulator 2>/dev/null; wait $emulator 2>/dev/null || true' EXIT

echo "+ nfctag readers"
"$bin" readers
echo "+ nfctag write url https://github.com/nfctag --reader \"$reader\""
"$bin" write url https://github.com/nfctag --reader "$reader" --timeout 10
echo "+ nfctag scan --reader \"$reader\""
"$bin" scan --reader "$reader" --timeout 10
echo "+ nfctag read --format json --reader \"$reader\""
"$bin" read --format json --reader "$reader" --timeout 10
