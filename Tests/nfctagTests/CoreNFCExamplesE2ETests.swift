import Foundation
import Testing

/// The CoreNFC example programs (Apple's three flows written as Core NFC code) through the real
/// pcscd and the virtual reader: the reader is the one `NFC_READER` names, as a Core NFC program's
/// user would set it. Their simulator runs are CoreNFCTests'.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct CoreNFCExamplesEndToEnd {
  /// Runs the example program `name` (built next to the test bundle) with `NFC_READER` set to
  /// the test's vpcd slot.
  func example(_ name: String, _ arguments: [String] = []) throws -> RunResult {
    try runProcess(nfctagBinary().deletingLastPathComponent().appendingPathComponent(name), arguments,
                   environment: ["NFC_READER": e2eReader], timeout: 30)
  }

  @Test func writeThenReadAnNTAG215() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let written = try example("CoreNFCWrite", ["Hello", "pcscd"])
    #expect(written.status == 0, "\(written.stdout)\(written.stderr)")
    #expect(written.stdout.contains("Write NDEF message successful."), "\(written.stdout)")
    let read = try example("CoreNFCRead")
    #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
    #expect(read.stdout.contains("Text (en) Hello pcscd"), "\(read.stdout)")
    // What the examples wrote is what the tool reads.
    #expect(try runNFCTag(["read", "--reader", e2eReader]).stdout.contains("Hello pcscd"))
  }

  @Test func tagCommandsOnAType4Tag() throws {
    let emulator = try Emulator(tag: "type4")
    defer { emulator.stop() }
    let r = try example("CoreNFCTagCommands")
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("Capability container: 00 "), "\(r.stdout)")
  }

  @Test func tagCommandsOnAnNTAG215() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let r = try example("CoreNFCTagCommands")
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("GET_VERSION: 00 04 04 02 01 00 11 03"), "\(r.stdout)")
  }
}
