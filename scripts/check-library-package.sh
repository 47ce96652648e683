#!/usr/bin/env bash
# What a library user sees of this package, from outside it:
# - the manifest declares the same package wherever it is evaluated: `swift package --package-path
#   <checkout> dump-package` run from another folder lists the products it lists in the checkout;
# - a scratch package outside this repository that depends on it by path with `traits: []` for
#   CoreNFC (which brings NFCSession, NFCEmulator, NFCReaders, PCSC, NDEF) resolves swift-log only:
#   the programs' stack is behind the default trait `Programs` (Package.swift; docs/architecture.md,
#   "One manifest"), and `swift build` prints no warning from this package.
# make test runs it beside the suites (it is mostly compiling; they are mostly waiting).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
dir=$(mktemp -d "${TMPDIR:-/tmp}/nfctag-library-user.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/Sources/App"
products() {  # the product names dump-package lists, sorted, from the folder it runs in
  "$swift" package --package-path "$root" dump-package 2>/dev/null |
    python3 -c 'import json, sys; print(" ".join(sorted(p["name"] for p in json.load(sys.stdin)["products"])))'
}
here=$(cd "$root" && products)
there=$(cd "$dir" && products)
if [ -z "$here" ] || [ "$here" != "$there" ]; then
  echo "library package: dump-package from another folder lists: ${there:-nothing}; in the checkout: ${here:-nothing}"
  exit 1
fi
cat > "$dir/Package.swift" <<PACKAGE
// swift-tools-version:6.1
import PackageDescription
let package = Package(
  name: "LibraryUser",
  dependencies: [.package(path: "$root", traits: [])],
  targets: [.executableTarget(name: "App", dependencies: ["CoreNFC", "NFCSession", "NFCReaders", "NFCEmulator", "NFCTestSupport"]
                              .map { .product(name: \$0, package: "$(basename "$root")") })]
)
PACKAGE
cat > "$dir/Sources/App/main.swift" <<'SWIFT'
import CoreNFC
import Foundation

let text = NFCNDEFPayload.wellKnownTypeTextPayload(string: "hello", locale: Locale(identifier: "en"))
print(NFCNDEFReaderSession.readingAvailable, text?.typeNameFormat == .nfcWellKnown)
SWIFT
# Every type in a product's public API comes with `import <product>` alone (docs/architecture.md,
# "Products and examples"): one file per product, each naming types its API takes or returns
# that are declared in the modules it re-exports, which are no products (NFCTransport, NFCTags).
cat > "$dir/Sources/App/Session.swift" <<'SWIFT'
import NFCSession

func valueBlock(_ tag: any NFCNDEFTag) -> MIFAREClassicValueBlock? { nil }
func valueChange(_ change: MIFAREClassicValueChange, in claim: MIFAREClassicSectorClaim) {}
func link(of target: DetectedTarget) -> any Transceiver { target.link }
func simulated(_ tags: [any VirtualTag], logger: Logger?) {}
SWIFT
cat > "$dir/Sources/App/Readers.swift" <<'SWIFT'
import NFCReaders

func poller(_ context: PCSCContext, reader: String, logger: Logger?) -> any TagPoller {
  PCSCTagPoller(context: context, readerName: reader, logger: logger)
}
func failed(_ error: PollError) -> Bool { true }
SWIFT
cat > "$dir/Sources/App/Emulator.swift" <<'SWIFT'
import NFCEmulator

func link(_ target: DetectedTarget) -> any Transceiver { target.link }
func chip(_ chip: MIFAREClassicChip, _ access: MIFAREClassicAccessConditions) {}
SWIFT
cat > "$dir/Sources/App/TestSupport.swift" <<'SWIFT'
import NFCTestSupport

func read(_ link: EmbeddedTransceiver) throws(TransceiveError) -> [UInt8] { try link.transceive([0x30, 0x04]) }
func platform(_ platform: TagPlatform, _ error: TagError?) {}
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
if [ $failed = 0 ]; then
  echo "library package: dump-package from another folder lists the checkout's products ($here);"
  echo "library package: a package using CoreNFC with traits: [] resolves swift-log only and builds without a warning"
fi
exit $failed
