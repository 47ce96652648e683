// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "nfctag",
  products: [
    .executable(name: "nfctag", targets: ["nfctag"]),
    .executable(name: "nfctag-provision", targets: ["nfctag-provision"]),
    .library(name: "NDEF", targets: ["NDEF"]),
    .library(name: "PCSC", targets: ["PCSC"]),
    .library(name: "NFCSession", targets: ["NFCSession"]),
    .library(name: "NFCReaders", targets: ["NFCReaders"]),
    .library(name: "NFCEmulator", targets: ["NFCEmulator"]),
    .library(name: "NFCTestSupport", targets: ["NFCTestSupport"]),
  ],
  // The programs' stack (argument parsing, swift-crypto, the ledgers, the SUN service) behind a
  // trait that is on by default: a package that uses only the libraries says `traits: []` and
  // resolves swift-log alone (docs/architecture.md, "One manifest").
  traits: [
    .trait(name: "Programs", description: "The nfctag and nfctag-provision programs' dependencies."),
    .default(enabledTraits: ["Programs"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // Provisioning: rows files, per-UID passwords, the embedded and the shared ledger.
    .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // The SUN verification service (`sdm serve`): HTTP, graceful shutdown, Prometheus metrics.
    // Hummingbird without its default traits (swift-configuration, full Foundation): less to build.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
  ],
  targets: [
    // C layer: pcsc-lite headers and the few helpers Swift cannot import.
    // A C target, not a system library with pkgConfig: libpcsclite.pc's -pthread made SwiftPM warn
    // ("prohibited flag") in every build, ours and those of packages that use this one. pcsc-lite's
    // headers (Debian: libpcsclite-dev) come through include/shim.h, with two forwarding headers
    // for the names winscard.h includes from its own folder.
    .target(name: "CPCSC", linkerSettings: [.linkedLibrary("pcsclite", .when(platforms: [.linux]))]),
    .target(name: "PCSC", dependencies: ["CPCSC"],
            linkerSettings: [.linkedLibrary("pcsclite", .when(platforms: [.linux])),
                             .linkedFramework("PCSC", .when(platforms: [.macOS]))]),
    // The one hex encoder and decoder. No dependencies.
    .target(name: "Hex"),
    // The project's one lock (`Locked`). No dependencies.
    .target(name: "Locking"),
    // Vocabulary shared by tags, readers, sessions and the emulator. No I/O. Re-exports Hex.
    .target(name: "NFCTransport", dependencies: ["Hex", "Locking"]),
    // Pure NDEF codec, and its JSON face. No Foundation, no I/O.
    .target(name: "NDEF"),
    .target(name: "NDEFJSON", dependencies: ["NDEF", "Hex"]),
    // NFC Forum tag platforms (Types 1-5) over a Transceiver.
    .target(name: "NFCTags", dependencies: ["NFCTransport", "NDEF", "NTAG424Commands"]),
    // PC/SC readers as Transceivers and pollers (ACR122U, generic Part 3).
    .target(name: "NFCReaders", dependencies: ["PCSC", "NFCTransport", "Locking",
                                               .product(name: "Logging", package: "swift-log")]),
    // Core NFC look-alike reader sessions: the one road from a program to a tag, on a PC/SC
    // reader or the in-process simulator (`sim:`, NFCEmulator).
    .target(name: "NFCSession", dependencies: ["NFCTags", "NDEF", "NFCTransport", "Hex", "NFCReaders", "Locking", "NFCEmulator",
                                               .product(name: "Logging", package: "swift-log")]),
    // The NTAG 424 DNA's command vocabulary without cryptography: GetVersion, file settings and
    // access rights parsed and built, the plain frames. nfctag links it (`info`); NTAG424 re-exports it.
    .target(name: "NTAG424Commands", dependencies: ["Hex", "EV2SecureMessaging"]),
    // EV2 secure messaging as the NTAG 424 DNA, DESFire EV2/EV3 and DESFire Light share it:
    // AuthenticateEV2First/NonFirst, session keys, CmdCtr and TI, CommMode Plain/MAC/Full, host
    // and card sides. No cipher of its own: AES and CMAC come from the module that uses it
    // (swift-crypto in NTAG424, libcrypto in DESFire), so nfctag may link it.
    .target(name: "EV2SecureMessaging"),
    // OpenSSL's libcrypto (the system's; headers from Debian's libssl-dev) for the one curve
    // swift-crypto lacks: ECDSA on secp224r1, NXP's originality signature. A C shim over OpenSSL
    // 3's EVP API that loads libcrypto.so.3 at its first call (dlopen), so that linking it costs
    // nfctag's start nothing (docs/architecture.md).
    .target(name: "COpenSSL"),
    // The 424 DNA's originality signature: NXP's public key, the virtual tag's test key pair,
    // verification and (for the virtual tag) signing, through COpenSSL.
    .target(name: "NTAG424Originality", dependencies: ["COpenSSL", "Hex"]),
    // MIFARE DESFire cryptography without I/O: the three-pass authentications, session keys, EV1
    // secure messaging (CMAC, CRC32, full mode), ChangeKey cryptograms. DES, 3DES and AES from
    // libcrypto through COpenSSL (swift-crypto has no DES), so nfctag may link it (docs/desfire.md).
    .target(name: "DESFire", dependencies: ["COpenSSL", "EV2SecureMessaging"]),
    // The host's DESFire authentications and EV1 secure messaging over NFCTags' DESFireCard, with
    // DESFire's ciphers: apart from NFCTags, which links no cipher (as NTAG424Tag is).
    .target(name: "DESFireTag", dependencies: ["DESFire", "EV2SecureMessaging", "NFCTags", "NFCTransport", "Hex"]),
    // NTAG 424 DNA cryptography: key derivation, secure messaging, SUN. No I/O; AES and CMAC from swift-crypto.
    .target(name: "NTAG424", dependencies: [
      "Hex", "NDEF", "NTAG424Commands", "EV2SecureMessaging", .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Programs"])),
      .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: ["Programs"]))]),
    // The NTAG 424 DNA's native commands over a Type 4 link, with NTAG424's secure messaging.
    // Apart from NFCTags so that nfctag, which links NFCTags, links no swift-crypto (docs/performance.md).
    .target(name: "NTAG424Tag", dependencies: ["NTAG424", "NFCTransport"]),
    // Software reader and tags, and the vpcd bridge that shows them to pcscd.
    .target(name: "NFCEmulator", dependencies: ["NFCTags", "NDEF", "NFCTransport", "Locking"]),
    // The virtual NTAG 424 DNA: registers itself as NFCEmulator's `ntag424dna` factory. Apart from
    // NFCEmulator so that nfctag, which links NFCEmulator, links no swift-crypto (NTAG424).
    .target(name: "NTAG424Emulator", dependencies: ["NFCEmulator", "NTAG424", "NTAG424Originality", "NFCTransport"]),
    // The virtual DESFire's cryptography: installs DESFire's (libcrypto) in NFCEmulator, which has none.
    .target(name: "DESFireEmulator", dependencies: ["NFCEmulator", "DESFire", "EV2SecureMessaging"]),
    .target(name: "NFCEmulatorVPCD", dependencies: ["NFCEmulator", "NFCTransport", "Locking"]),
    .target(name: "NFCTestSupport", dependencies: ["NFCTransport", "NFCTags"]),
    // Which row went onto which tag: the ledger's interface and audit report, and its backends.
    .target(name: "ProvisioningLedger", dependencies: [
      "NDEFJSON", .product(name: "CSV", package: "CSV.swift", condition: .when(traits: ["Programs"]))]),
    .target(name: "ProvisioningLedgerSQLite", dependencies: [
      "ProvisioningLedger", "Locking", .product(name: "SQLiteNIO", package: "sqlite-nio", condition: .when(traits: ["Programs"]))]),
    .target(name: "ProvisioningLedgerPostgres", dependencies: [
      "ProvisioningLedger", "Locking", .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Programs"]))]),
    // The SUN verification service's HTTP face (`sdm serve`): routes, JSON answers, metrics, over
    // NTAG424's SUNVerification and a Ledger's counters. nfctag-provision runs it.
    .target(name: "SUNService", dependencies: [
      "NTAG424", "ProvisioningLedger", "NDEFJSON", "Hex", "Locking",
      .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Programs"])),
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Programs"])),
      .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Programs"])),
      .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Programs"])),
      .product(name: "Logging", package: "swift-log")]),
    // Batch provisioning over NFCSession: rows, templates, per-tag steps.
    .target(name: "Provisioning", dependencies: [
      "NFCSession", "NFCTags", "NFCTransport", "Hex", "NDEF", "NDEFJSON", "NTAG424", "NTAG424Tag", "ProvisioningLedger", "Locking",
      "DESFire", "DESFireTag",
      .product(name: "CSV", package: "CSV.swift", condition: .when(traits: ["Programs"])),
      .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Programs"]))]),
    // The tool's layer both of its programs share: exit statuses and the failure table, stderr
    // and stdout, the console, the APDU trace, a reader by its --reader value, the one-line main.
    .target(name: "NFCTagCLI", dependencies: [
      "NDEF", "NDEFJSON", "NFCTags", "NFCReaders", "NFCSession", "NFCEmulator", "NFCTransport", "Locking",
      .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Programs"])),
      .product(name: "Logging", package: "swift-log"),
    ]),
    // `emulate`, which both programs run: nfctag for the kinds it links, nfctag-provision (which
    // registers the NTAG 424 DNA) for the others, after nfctag hands the command over.
    .target(name: "NFCTagEmulate", dependencies: [
      "NFCTagCLI", "NFCEmulator", "NFCEmulatorVPCD", "NFCTransport", "Locking",
      .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Programs"])),
    ]),
    // The declarations of `provision` and `ledger`: nfctag shows them (help, man page,
    // completions) without linking the provisioning modules; nfctag-provision runs them.
    .target(name: "ProvisionCommands", dependencies: [
      "NFCTagCLI", "NFCTransport", "Locking", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Programs"])),
    ]),
    // The tool. No Foundation, SwiftNIO or swift-crypto: `provision` and `ledger` are handed to
    // nfctag-provision (exec), which keeps the cold start short.
    .executableTarget(name: "nfctag", dependencies: [
      "NDEF", "NDEFJSON", "NFCTags", "NFCReaders", "NFCSession", "NFCEmulator", "NFCTagEmulate",
      "NFCTransport", "PCSC", "Hex", "NFCTagCLI", "ProvisionCommands", "Locking", "NTAG424Originality", "DESFireEmulator", "DESFireTag",
      .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Programs"])),
      .product(name: "Logging", package: "swift-log"),
    ]),
    // `nfctag provision` and `nfctag ledger`'s work, with the ledgers and swift-crypto.
    .executableTarget(name: "nfctag-provision", dependencies: [
      "NFCTagCLI", "ProvisionCommands", "NFCTagEmulate", "NFCSession", "NFCTransport", "Locking", "NTAG424", "NTAG424Tag", "NTAG424Emulator",
      "DESFireEmulator", "DESFireTag", "DESFire", "NFCTags",
      "Provisioning", "ProvisioningLedger", "ProvisioningLedgerSQLite", "ProvisioningLedgerPostgres", "SUNService",
      .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Programs"])),
      .product(name: "Logging", package: "swift-log"),
    ]),
    // The seed sample and tutorial, on a real reader: what a library user writes.
    .executableTarget(name: "ScanTags", dependencies: ["NFCSession"], path: "Examples/ScanTags"),
    .executableTarget(name: "WriteText", dependencies: ["NFCSession"], path: "Examples/WriteText"),
    .executableTarget(name: "NFCBench", dependencies: [
      "NDEF", "NDEFJSON", "NFCTags", "NFCEmulator", "NFCTransport", "NFCReaders", "NTAG424Emulator",
      // `provision` onto virtual DESFire cards in process (DESFireProvisioningCounts.swift).
      "Provisioning", "ProvisioningLedger", "ProvisioningLedgerSQLite", "DESFireEmulator", "DESFireTag", "Hex", "Locking", "NTAG424",
    ], path: "Benchmarks/NFCBench"),
    // The SUN verifier's URLs per second (make bench).
    .executableTarget(name: "SUNBench", dependencies: ["NTAG424"], path: "Benchmarks/SUNBench"),
    // Request paths for `make bench`'s load on `sdm serve` (wrk), and the ledger it opens.
    .executableTarget(name: "SUNServeBench", dependencies: [
      "NTAG424", "Hex", "ProvisioningLedger", "ProvisioningLedgerSQLite", "ProvisioningLedgerPostgres"],
                      path: "Benchmarks/SUNServeBench"),
    .executableTarget(name: "LedgerBench", dependencies: ["ProvisioningLedger", "ProvisioningLedgerSQLite"],
                      path: "Benchmarks/LedgerBench"),
    // The shared ledger under load (make bench, against scripts/with-postgres.sh's server).
    .executableTarget(name: "PostgresLedgerBench", dependencies: [
      "ProvisioningLedger", "ProvisioningLedgerPostgres", "Locking"], path: "Benchmarks/PostgresLedgerBench"),

    .testTarget(name: "HexTests", dependencies: ["Hex"]),
    .testTarget(name: "LockingTests", dependencies: ["Locking"]),
    .testTarget(name: "NDEFTests", dependencies: ["NDEF", "NFCTestSupport"]),
    .testTarget(name: "NDEFJSONTests", dependencies: ["NDEFJSON", "NDEF"]),
    .testTarget(name: "NFCTransportTests", dependencies: ["NFCTransport"]),
    .testTarget(name: "PCSCTests", dependencies: ["PCSC", "NFCReaders"]),
    .testTarget(name: "NFCTagsTests", dependencies: ["NFCTags", "NFCTestSupport", "NDEF"],
                resources: [.copy("Fixtures")]),
    .testTarget(name: "NFCReadersTests", dependencies: ["NFCReaders", "NFCTestSupport", "PCSC"]),
    .testTarget(name: "NFCSessionTests", dependencies: ["NFCSession", "NFCEmulator", "NFCTestSupport", "Locking"]),
    .testTarget(name: "NTAG424Tests", dependencies: ["NTAG424", "NTAG424Originality", "Hex", "NDEF"]),
    .testTarget(name: "DESFireTests", dependencies: ["DESFire", "EV2SecureMessaging"]),
    .testTarget(name: "DESFireTagTests", dependencies: ["DESFireTag", "DESFire", "EV2SecureMessaging", "DESFireEmulator", "NFCEmulator", "NFCTags", "NFCTestSupport", "NFCTransport"]),
    .testTarget(name: "DESFireEmulatorTests", dependencies: ["DESFireEmulator", "DESFire", "NFCEmulator", "EV2SecureMessaging", "NTAG424"]),
    .testTarget(name: "NTAG424TagTests", dependencies: [
      "NTAG424Tag", "NTAG424", "NFCTestSupport", "NFCTransport", "NTAG424Emulator", "NFCEmulator", "Locking"]),
    .testTarget(name: "NFCEmulatorTests", dependencies: ["NFCEmulator", "NFCTags", "NFCReaders", "NFCTestSupport"]),
    .testTarget(name: "NTAG424EmulatorTests", dependencies: [
      "NTAG424Emulator", "NFCEmulator", "NTAG424", "NTAG424Originality", "NFCTags", "NFCReaders", "NFCSession", "NFCTransport",
      "NFCTestSupport"]),
    .testTarget(name: "NFCEmulatorVPCDTests", dependencies: ["NFCEmulatorVPCD", "NFCEmulator", "NFCTransport", "PCSC", "Locking"]),
    .testTarget(name: "ProvisioningTests", dependencies: [
      "Provisioning", "ProvisioningLedger", "NFCSession", "NFCEmulator", "NFCReaders", "NFCTags", "NDEF", "Locking",
      "NTAG424", "NTAG424Tag", "NTAG424Emulator", "DESFire", "DESFireTag", "DESFireEmulator"]),
    .testTarget(name: "ProvisioningLedgerTests", dependencies: [
      "ProvisioningLedger", "ProvisioningLedgerSQLite", "ProvisioningLedgerPostgres", "Locking",
      .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Programs"]))]),
    .testTarget(name: "SUNServiceTests", dependencies: [
      "SUNService", "NTAG424", "ProvisioningLedger", "ProvisioningLedgerSQLite", "Hex",
      .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Programs"]))]),
    .testTarget(name: "nfctagTests", dependencies: [
      "nfctag", "nfctag-provision", "NFCTagCLI", "NTAG424", "NTAG424Tag", "NTAG424Emulator", "NTAG424Originality", "ProvisioningLedger", "ProvisioningLedgerSQLite", "ProvisioningLedgerPostgres", "Locking", "PCSC"]),
  ],
  swiftLanguageModes: [.v6]
)

// Core NFC's own API over NFCSession, so that code written for Core NFC builds unchanged on Linux.
// Declared on Linux only: elsewhere `import CoreNFC` is Apple's framework, which a module of that
// name from this package would shadow (its files are also inside `#if os(Linux)`).
#if os(Linux)
package.products.append(.library(name: "CoreNFC", targets: ["CoreNFC"]))
package.targets += [
  .target(name: "CoreNFC", dependencies: ["NFCSession", "NFCTags", "NDEF", "Locking"]),
  // Apple's three flows as Core NFC code (`import CoreNFC`), the reader from NFC_READER.
  .executableTarget(name: "CoreNFCRead", dependencies: ["CoreNFC"], path: "Examples/CoreNFCRead"),
  .executableTarget(name: "CoreNFCWrite", dependencies: ["CoreNFC"], path: "Examples/CoreNFCWrite"),
  .executableTarget(name: "CoreNFCTagCommands", dependencies: ["CoreNFC"], path: "Examples/CoreNFCTagCommands"),
  // The tests run the three examples too (ExampleProgramTests), so they depend on them.
  .testTarget(name: "CoreNFCTests", dependencies: ["CoreNFC", "NFCSession", "NFCTestSupport", "CoreNFCRead", "CoreNFCWrite", "CoreNFCTagCommands"]),
]
#endif

// The ThreadSanitizer build (`make tsan-build`, scratch path .build-tsan) compiles only what
// `make tsan`'s suites run (the Makefile's TSAN_SUITES): the test targets of the code that starts
// threads or shares state, and of nfctagTests and ProvisioningTests only the files those suites and
// their helpers are in. Everything else is compiled by the debug build and tested there; leaving it
// out here saves a third of the TSan build's CPU time in CI (docs/architecture.md, "CI").
// NFCTAG_TSAN_BUILD is set by the Makefile's tsan targets only; any other build sees the whole package.
if Context.environment["NFCTAG_TSAN_BUILD"] == "1" {
  let tsanTestTargets: Set = [
    "LockingTests", "PCSCTests", "NFCReadersTests", "NFCSessionTests", "CoreNFCTests", "NFCEmulatorVPCDTests",
    "ProvisioningLedgerTests", "ProvisioningTests", "nfctagTests"]
  let benchmarks: Set = ["NFCBench", "SUNBench", "SUNServeBench", "LedgerBench", "PostgresLedgerBench"]
  package.targets.removeAll { ($0.type == .test && !tsanTestTargets.contains($0.name)) || benchmarks.contains($0.name) }
  for target in package.targets where target.name == "ProvisioningTests" {
    target.sources = ["ProvisioningRunTests.swift", "InMemoryLedger.swift"]
  }
  for target in package.targets where target.name == "nfctagTests" {
    target.sources = [
      // The suites.
      "SessionE2ETests.swift", "ConsoleCLITests.swift", "TagE2ETests.swift", "StationsE2ETests.swift",
      "ProvisionE2ETests.swift", "FeederE2ETests.swift", "ServiceRestartE2ETests.swift", "FaultsE2ETests.swift",
      // What they share.
      "BinaryRunner.swift", "CardWatch.swift", "DriverReaders.swift", "E2ESupport.swift", "InProcessRunner.swift",
      "ScratchFolder.swift", "VirtualSlots.swift", "FormatOptionTests.swift"]
  }
}
