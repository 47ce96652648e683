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
    let reader: String, port: Int, face: String, tag: String, atr: String, control: String, answer: String
    /// The control code, as `SCARD_CTL_CODE(code)` (1: the vendor escape on Linux).
    var code = 1
    var description: String { "\(face) as \(reader)" }
  }

  /// The Part 3 storage-card ATRs of a Type 2 tag, an ICODE and a MIFARE Classic 1K (PC/SC Part 3
  /// §3.1.3.2.3), and the ISO-DEP ATR of the virtual Type 4 tag (its ATS's historical byte 80).
  static let ntagATR = "3B8F8001804F0CA0000003060300030000000068"
  static let icodeATR = "3B8F8001804F0CA0000003060B00140000000077"
  static let classicATR = "3B8F8001804F0CA000000306030001000000006A"
  static let type4ATR = "3B8180018080"

  static let cases = [
    // ACR122U: its firmware pseudo-APDU through the escape, answered "ACR122U207" (libnfc's acr122_pcsc).
    Case(reader: "ACS ACR122U PICC Interface 00 00", port: 36100, face: "acr122u", tag: "ntag215", atr: ntagATR,
         control: "FF00480000", answer: hex("ACR122U207")),
    // part3, the ACR1552U's old name: ACS's Get Firmware Version escape, E1 00 00 00 len firmware.
    Case(reader: "ACS ACR1552 1S CL Reader PICC 02 00", port: 36102, face: "part3", tag: "icode-slix2", atr: icodeATR,
         control: "E000001800", answer: "E10000000F" + hex("ACR1552U_V101.0")),
    // ACR1252U: Get Firmware Version (ACM1252U-Y3 manual §5.3.1), through acsccid's SCARD_CTL_CODE(3500).
    Case(reader: "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 04 00", port: 36104, face: "acr1252u",
         tag: "ntag215", atr: ntagATR, control: "E000001800", answer: "E10000000F" + hex("ACR1252U_V202.2"), code: 3500),
    // ACR1552U: the LED escape E0 00 00 29 01 <state> answers the state.
    Case(reader: "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC] 05 00", port: 36105, face: "acr1552u",
         tag: "icode-slix2", atr: icodeATR, control: "E00000290103", answer: "E10000000103"),
    // uTrust 3700 F: escape B2 FF reads the LED control setting (00: by the firmware).
    Case(reader: "Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] (0000000001) 06 00", port: 36106,
         face: "utrust3700f", tag: "type4", atr: type4ATR, control: "B2FF", answer: "00"),
    // OMNIKEY 5022 and 5422: HID's vendor command, the firmware version read.
    Case(reader: "HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022 Smart Card Reader] 07 00", port: 36107,
         face: "omnikey5022", tag: "icode-slix2", atr: icodeATR, control: "FF70076B08A206A004A002850000",
         answer: "BD058503010A009000"),
    Case(reader: "HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader] 08 00", port: 36108,
         face: "omnikey5422", tag: "mifare-classic-1k-ndef", atr: classicATR, control: "FF70076B08A206A004A002850000",
         answer: "BD058503010A009000"),
    // SCL3711: no escape through PC/SC.
    Case(reader: "SCL3711 Reader and NFC Device 09 00", port: 36109, face: "scl3711", tag: "ntag215", atr: ntagATR,
         control: "E000001800", answer: "unsupported"),
  ]

  @Test(arguments: cases) func readerFaceThroughPcscd(_ c: Case) throws {
    try withDriverEmulator(tag: c.tag, face: c.face, port: c.port) { try checkFace(c) }
  }

  private func checkFace(_ c: Case) throws {
    // The script waits up to 10 s for the card itself.
    let check = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/ifd-nfctag-check.py").path,
                                                    c.reader, c.control, c.answer, String(c.code)])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("reader \(c.reader)\n"))
    #expect(check.stdout.contains("atr \(c.atr.lowercased())\n"))
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
    let c = Case(reader: "ACS ACR122U PICC Interface 01 00", port: 36101, face: "acr122u", tag: "ntag213", atr: Self.ntagATR,
                 control: "FF00480000", answer: hex("ACR122U207"))
    try readerFaceThroughPcscd(c)
  }
}

/// The driver's readers are installed (`make pcscd` runs scripts/install-ifd-nfctag.sh).
let ifdHandlerInstalled = FileManager.default.fileExists(atPath: "/etc/reader.conf.d/nfctag")
let ifdHandlerSkipReason: Comment = "needs nfctag's pcsc-lite driver: run `make pcscd` (scripts/install-ifd-nfctag.sh)"

private func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }

/// Runs `nfctag emulate` of a `tag` in `face` on nfctag's pcsc-lite driver's reader at `port`
/// (docs/ifd-handler.md) while `body` runs, and stops it after.
func withDriverEmulator(tag: String, face: String, port: Int, _ body: () throws -> Void) throws {
  let emulator = Process()
  emulator.executableURL = nfctagBinary()
  emulator.arguments = ["emulate", "--tag", tag, "--reader", face, "--vpcd", "127.0.0.1:\(port)"]
  emulator.standardOutput = FileHandle.nullDevice
  emulator.standardError = FileHandle.nullDevice
  try emulator.run()
  defer {
    if emulator.isRunning { kill(emulator.processIdentifier, SIGINT) }
    emulator.waitUntilExit()
  }
  try body()
}
