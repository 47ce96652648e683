#!/usr/bin/env bash
# A library user's package: a scratch package outside this repository that depends on it by path
# for CoreNFC (which brings NFCSession, NFCEmulator, NFCReaders, PCSC, NDEF). Checks that
# `swift package resolve` fetches swift-log only (none of the programs' dependencies: Package.swift,
# "As another package's dependency"), and that `swift build` prints no warning from this package.
# make test runs it beside the suites (it is mostly compiling; they are mostly waiting).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
dir=$(mktemp -d "${TMPDIR:-/tmp}/nfctag-library-user.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/Sources/App"
cat > "$dir/Package.swift" <<PACKAGE
// swift-tools-version:6.0
import PackageDescription
let package = Package(
  name: "LibraryUser",
  dependencies: [.package(path: "$root")],
  targets: [.executableTarget(name: "App", dependencies: [.product(name: "CoreNFC", package: "$(basename "$root")")])]
)
PACKAGE
cat > "$dir/Sources/App/main.swift" <<'SWIFT'
import CoreNFC
import Foundation

let text = NFCNDEFPayload.wellKnownTypeTextPayload(string: "hello", locale: Locale(identifier: "en"))
print(NFCNDEFReaderSession.readingAvailable, text?.typeNameFormat == .nfcWellKnown)
SWIFT
cd "$dir" || exit 1
failed=0
if ! "$swift" package resolve > resolve.log 2>&1; then
  echo "library package: swift package resolve failed:"; cat resolve.log; exit 1
fi
resolved=$(grep -o '"identity" : "[^"]*"' Package.resolved 2>/dev/null | cut -d'"' -f4 | sort | tr '\n' ' ')
if [ "$resolved" != "swift-log " ]; then
  echo "library package: a package using CoreNFC resolves: ${resolved:-nothing} (expected swift-log only)"
  failed=1
fi
if ! "$swift" build > build.log 2>&1; then
  echo "library package: swift build failed:"; tail -30 build.log; exit 1
fi
if grep -n "warning:" build.log | grep -v "/swift-log/" > warnings.log; then
  echo "library package: swift build warns:"; cat warnings.log
  failed=1
fi
if [ $failed = 0 ]; then echo "library package: a package using CoreNFC resolves swift-log only and builds without a warning"; fi
exit $failed
