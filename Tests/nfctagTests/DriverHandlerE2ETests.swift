import Foundation
import Testing

/// nfctag's pcsc-lite driver (Drivers/ifd-nfctag, docs/ifd-handler.md) through the real pcscd: each
/// reader is listed under the name the real reader has, an `nfctag emulate` attached to its port
/// shows its card (ATR, APDUs), `SCardControl` reaches the face and brings back its answer, seen
/// by pyscard (an independent PC/SC client, scripts/ifd-nfctag-check.py), pcsc_scan lists it
/// with the card's ATR, and `nfctag scan
/// --reader NAME` reads the tag behind it.
///
/// Each reader's name is checked against the one the real reader has under pcsc-lite.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverHandlerEndToEnd {
  struct Case: Sendable, CustomStringConvertible {
    /// The name without pcscd's ` NN 00`.
    let reader: String, face: String, tag: String, atr: String, control: String, answer: String
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
    Case(reader: "ACS ACR122U PICC Interface", face: "acr122u", tag: "ntag215", atr: ntagATR,
         control: "FF00480000", answer: hex("ACR122U207")),
    // part3, the ACR1552U's face by its older name: ACS's Get Firmware Version escape, E1 00 00 00
    // len firmware.
    Case(reader: "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC]", face: "part3", tag: "icode-slix2", atr: icodeATR,
         control: "E000001800", answer: "E10000000F" + hex("ACR1552U_V101.0")),
    // ACR1252U: Get Firmware Version (ACM1252U-Y3 manual §5.3.1), through acsccid's SCARD_CTL_CODE(3500).
    Case(reader: "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC]", face: "acr1252u",
         tag: "ntag215", atr: ntagATR, control: "E000001800", answer: "E10000000F" + hex("ACR1252U_V202.2"), code: 3500),
    // ACR1552U: the LED escape E0 00 00 29 01 <state> answers the state.
    Case(reader: "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC]", face: "acr1552u",
         tag: "icode-slix2", atr: icodeATR, control: "E00000290103", answer: "E10000000103"),
    // uTrust 3700 F: escape B2 FF reads the LED control setting (00: by the firmware).
    Case(reader: "Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] (0000000001)",
         face: "utrust3700f", tag: "type4", atr: type4ATR, control: "B2FF", answer: "00"),
    // OMNIKEY 5022 and 5422: HID's vendor command, the firmware version read.
    Case(reader: "HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022 Smart Card Reader]",
         face: "omnikey5022", tag: "icode-slix2", atr: icodeATR, control: "FF70076B08A206A004A002850000",
         answer: "BD058503010A009000"),
    Case(reader: "HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader]",
         face: "omnikey5422", tag: "mifare-classic-1k-ndef", atr: classicATR, control: "FF70076B08A206A004A002850000",
         answer: "BD058503010A009000"),
    // SCL3711: no escape through PC/SC.
    Case(reader: "SCL3711 Reader and NFC Device", face: "scl3711", tag: "ntag215", atr: ntagATR,
         control: "E000001800", answer: "unsupported"),
  ]

  @Test(arguments: cases) func readerFaceThroughPcscd(_ c: Case) throws {
    try withDriverReader(face: c.face, tag: c.tag) { reader, _ in
      #expect(reader.friendlyName == c.reader)
      try checkFace(c, reader.name)
    }
  }

  private func checkFace(_ c: Case, _ name: String) throws {
    // The script waits up to 10 s for the card itself.
    let check = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/ifd-nfctag-check.py").path,
                                                    name, c.control, c.answer, String(c.code)])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("reader \(name)\n"))
    #expect(check.stdout.contains("atr \(c.atr.lowercased())\n"))
    #expect(check.stdout.contains("control \(c.answer.lowercased())\n"))
    #expect(check.stdout.contains("unsupported 8010001f"))  // SCARD_E_UNSUPPORTED_FEATURE for a code the face lacks
    // pcsc_scan (pcsc-tools), another independent client: the reader under its name, the card in it, its ATR.
    let pcscScan = try runProgram("/usr/bin/pcsc_scan", ["-t", "1", "-n"], timeout: 20)
    // Its status blocks: " Reader N: NAME", then the event, card state and ATR lines.
    let block = pcscScan.stdout.components(separatedBy: "\n Reader ").last { $0.contains(": \(name)\n") } ?? ""
    #expect(block.contains("Card state: Card inserted"), "pcsc_scan: \(pcscScan.stdout)")
    #expect(block.contains("ATR: " + stride(from: 0, to: c.atr.count, by: 2).map { i in
      let start = c.atr.index(c.atr.startIndex, offsetBy: i)
      return String(c.atr[start..<c.atr.index(start, offsetBy: 2)])
    }.joined(separator: " ")), "pcsc_scan: \(block)")
    let scan = try runNFCTag(["scan", "--reader", name, "--timeout", "5"])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains("reader: \(name)"))
  }

  /// An emulator that answers garbage (an ATR longer than 33 bytes, a length with no payload, an
  /// empty answer, random bytes) is a card gone, never a crash: pcscd still runs afterwards, and
  /// the next emulator on the same port is served.
  @Test func aGarbledEmulatorIsACardGoneAndTheReaderServesTheNextOne() throws {
    try holdingDriverReader(face: "acr122u") { reader in
      let garble = """
        import os, socket, sys, time
        for answer in [b"\\x00\\x28" + b"\\x3b" * 40, b"\\xff\\xff\\x00", b"", b"\\x00\\x00", os.urandom(300)]:
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
            s.recv(3)  # the presence poll's GET ATR
            s.sendall(answer)
            time.sleep(0.6)
            s.close()
            time.sleep(0.5)
        """
      let r = try runProgram("/usr/bin/python3", ["-c", garble, String(reader.port)])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(pcscdAlive())
      let emulator = try Emulator(tag: "ntag213", extra: ["--reader", "acr122u"], driver: reader)
      defer { emulator.stop() }
      let c = Case(reader: reader.friendlyName, face: "acr122u", tag: "ntag213", atr: Self.ntagATR,
                   control: "FF00480000", answer: hex("ACR122U207"))
      try checkFace(c, reader.name)
    }
  }
}

/// The driver's readers are installed (`make pcscd` runs scripts/install-ifd-nfctag.sh).
let ifdHandlerInstalled = FileManager.default.fileExists(atPath: "/etc/reader.conf.d/nfctag")
let ifdHandlerSkipReason: Comment = "needs nfctag's pcsc-lite driver: run `make pcscd` (scripts/install-ifd-nfctag.sh)"

private func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }
