import Foundation
import Testing

/// nfctag's pcsc-lite driver (Drivers/ifd-nfctag, docs/ifd-handler.md) through the real pcscd: each
/// reader is listed under the name the real reader has, an `nfctag emulate` attached to its port
/// shows its card (ATR, APDUs), `SCardControl` reaches the face and brings back its answer, seen
/// by pyscard (an independent PC/SC client, scripts/ifd-nfctag-check.py), and `nfctag scan
/// --reader NAME` reads the tag behind it.
///
/// Holds one vpcd slot (`.virtualReader`) though it uses none: the tests that restart pcscd hold
/// both, so none restarts it under this one.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason), .virtualReader)
struct IFDHandlerEndToEnd {
  struct Case: Sendable, CustomStringConvertible {
    let reader: String, port: Int, face: String, tag: String, control: String, answer: String
    var description: String { "\(face) as \(reader)" }
  }

  static let cases = [
    // ACR122U: its firmware pseudo-APDU through the escape, answered "ACR122U207" (libnfc's acr122_pcsc).
    Case(reader: "ACS ACR122U PICC Interface 00 00", port: 36100, face: "acr122u", tag: "ntag215",
         control: "FF00480000", answer: hex("ACR122U207")),
    // Part 3 (ACR1552-shaped): ACS's Get Firmware Version escape, E1 00 00 00 len firmware.
    Case(reader: "ACS ACR1552 1S CL Reader PICC 02 00", port: 36102, face: "part3", tag: "icode-slix2",
         control: "E000001800", answer: "E10000000F" + hex("ACR1552U_V101.0")),
  ]

  @Test(arguments: cases) func readerFaceThroughPcscd(_ c: Case) throws {
    let emulator = Process()
    emulator.executableURL = nfctagBinary()
    emulator.arguments = ["emulate", "--tag", c.tag, "--reader", c.face, "--vpcd", "127.0.0.1:\(c.port)"]
    emulator.standardOutput = FileHandle.nullDevice
    emulator.standardError = FileHandle.nullDevice
    try emulator.run()
    defer {
      if emulator.isRunning { kill(emulator.processIdentifier, SIGINT) }
      emulator.waitUntilExit()
    }
    // The script waits up to 10 s for the card itself.
    let check = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/ifd-nfctag-check.py").path,
                                                    c.reader, c.control, c.answer])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("reader \(c.reader)\n"))
    #expect(check.stdout.contains("control \(c.answer.lowercased())\n"))
    #expect(check.stdout.contains("unsupported 8010001f"))  // SCARD_E_UNSUPPORTED_FEATURE for a code the face lacks
    let scan = try runNFCTag(["scan", "--reader", c.reader, "--timeout", "5"])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains("reader: \(c.reader)"))
  }

  /// An emulator that answers garbage (an ATR longer than 33 bytes, a length with no payload, an
  /// empty answer, random bytes) is a card gone, never a crash: pcscd still runs afterwards, and
  /// the next emulator on the same port is served.
  @Test func aGarbledEmulatorIsACardGoneAndTheReaderServesTheNextOne() throws {
    let garble = """
      import os, socket, time
      for answer in [b"\\x00\\x28" + b"\\x3b" * 40, b"\\xff\\xff\\x00", b"", b"\\x00\\x00", os.urandom(300)]:
          s = socket.create_connection(("127.0.0.1", 36101), timeout=3)
          s.recv(3)  # the presence poll's GET ATR
          s.sendall(answer)
          time.sleep(0.6)
          s.close()
          time.sleep(0.5)
      """
    let r = try runProgram("/usr/bin/python3", ["-c", garble])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(pcscdAlive())
    let c = Case(reader: "ACS ACR122U PICC Interface 01 00", port: 36101, face: "acr122u", tag: "ntag213",
                 control: "FF00480000", answer: hex("ACR122U207"))
    try readerFaceThroughPcscd(c)
  }
}

/// The driver's readers are installed (`make pcscd` runs scripts/install-ifd-nfctag.sh).
let ifdHandlerInstalled = FileManager.default.fileExists(atPath: "/etc/reader.conf.d/nfctag")
let ifdHandlerSkipReason: Comment = "needs nfctag's pcsc-lite driver: run `make pcscd` (scripts/install-ifd-nfctag.sh)"

private func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }
