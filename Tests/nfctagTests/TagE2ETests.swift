import Foundation
import Testing

/// The real `nfctag` binary against the real pcscd, with `nfctag emulate` as the tag.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct TagEndToEnd {
  @Test func readersShowTheVirtualReaderWithACard() throws {
    let emulator = try Emulator()
    defer { emulator.stop() }
    let r = try runNFCTag(["readers"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("\(e2eReader)  (card present)"))
  }

  @Test func writeTextAndURLThenReadBack() throws {
    let emulator = try Emulator()
    defer { emulator.stop() }
    let write = try runNFCTag(["write", "text", "Hello, tag", "--lang", "en", "--reader", e2eReader, "--timeout", "10"])
    #expect(write.status == 0, "\(write.stderr)")
    let read = try runNFCTag(["read", "--format", "json", "--reader", e2eReader, "--timeout", "10"])
    #expect(read.status == 0)
    #expect(read.stdout.contains(#""text":{"language":"en","encoding":"utf-8","text":"Hello, tag"}"#))

    #expect(try runNFCTag(["write", "url", "https://example.org/a", "--reader", e2eReader, "--timeout", "10"]).status == 0)
    let scan = try runNFCTag(["scan", "--json", "--reader", e2eReader, "--timeout", "10"])
    #expect(scan.status == 0)
    #expect(scan.stdout.contains(#""chip":"NTAG215""#))
    #expect(scan.stdout.contains(#""uri":"https://example.org/a""#))
    #expect(scan.stdout.contains(#""atr":"3b8f8001804f0ca0000003060300030000000068""#))

    // The image file is the raw memory: the NDEF TLV sits at page 4.
    let image = try [UInt8](Data(contentsOf: emulator.image))
    #expect(image.count == 135 * 4)
    #expect(image[16] == 0x03)  // NDEF TLV
    #expect(image[18] == 0xD1)  // its first record header: MB ME SR, well-known
  }

  @Test func dumpNDEFAndMemory() throws {
    let emulator = try Emulator()
    defer { emulator.stop() }
    #expect(try runNFCTag(["write", "uri", "tel:123", "--reader", e2eReader]).status == 0)
    let ndef = try runNFCTag(["dump", "--format", "json", "--reader", e2eReader])
    #expect(ndef.stdout.contains(#""hex":"d101045505313233""#))  // URI record, code 05 (tel:), "123"
    let memory = try runNFCTag(["dump", "--memory", "--format", "raw", "--reader", e2eReader])
    #expect(memory.stdoutBytes.count == 540)
    #expect(Array(memory.stdoutBytes.prefix(3)) == [0x04, 0xA1, 0xB2])
  }

  @Test func messageLargerThanTheTagIs73AndNothingIsWritten() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let before = try Data(contentsOf: emulator.image)
    let big = String(repeating: "x", count: 400)
    let r = try runNFCTag(["write", "text", big, "--reader", e2eReader])
    #expect(r.status == 73)
    #expect(r.stderr.contains("nothing was written"))
    #expect(try Data(contentsOf: emulator.image) == before)
  }

  @Test func lockNeedsYesThenTheTagIsReadOnly() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    #expect(try runNFCTag(["lock", "--reader", e2eReader]).status == 64)
    let lock = try runNFCTag(["lock", "--yes", "--reader", e2eReader])
    #expect(lock.status == 0, "\(lock.stderr)")
    let write = try runNFCTag(["write", "text", "x", "--reader", e2eReader])
    #expect(write.status == 77)
    #expect(write.stderr.contains("read-only"))
  }

  @Test func noTagBeforeTheTimeoutIs75() throws {
    let r = try runNFCTag(["read", "--reader", e2eReader, "--timeout", "1"])
    #expect(r.status == 75)
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  @Test func noPCSCServiceIs69() throws {
    let r = try runNFCTag(["read", "--timeout", "1"], environment: ["PCSCLITE_CSOCK_NAME": "/nonexistent/pcscd.comm"])
    #expect(r.status == 69)
    #expect(r.stderr.contains("pcscd"))
  }

  @Test func tagRemovedMidReadIs74WithTapAgain() throws {
    // Identification takes 2 APDUs (GET_VERSION by direct transmit, then the UID): the tag
    // leaves before the first FAST_READ.
    let emulator = try Emulator(tag: "ntag216", extra: ["--remove-after", "2"])
    let r = try runNFCTag(["read", "--reader", e2eReader, "--timeout", "5"])
    #expect(r.status == 74)
    #expect(r.stderr.contains("tap"))
    #expect(emulator.waitForExit() == 0)
  }

  @Test func readerCommandsReachTheACR122U() throws {
    let emulator = try Emulator()
    defer { emulator.stop() }
    let firmware = try runNFCTag(["reader", "firmware", "--reader", e2eReader])
    #expect(firmware.status == 0, "\(firmware.stderr)")
    #expect(firmware.stdout == "ACR122U207\n")
    #expect(try runNFCTag(["reader", "led", "--red", "--green", "--reader", e2eReader]).stdout == "red on, green on\n")
    #expect(try runNFCTag(["reader", "led", "--green", "--reader", e2eReader]).stdout == "red off, green on\n")
    #expect(try runNFCTag(["reader", "buzzer", "off", "--reader", e2eReader]).status == 0)
    #expect(try runNFCTag(["reader", "led", "--period", "5", "--reader", e2eReader]).status == 64)
  }

  @Test func readerCommandsWithoutATagSayWhatToDo() throws {
    let r = try runNFCTag(["reader", "firmware", "--reader", e2eReader])
    #expect(r.status == 69)
    #expect(r.stderr.contains("put a tag on it"))
  }

  @Test func anIndependentPCSCClientReadsTheVirtualTag() throws {
    let emulator = try Emulator()
    defer { emulator.stop() }
    let r = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/pcsc-check.py").path, e2eReader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("uid 04a1b2c3d4e580"))
    #expect(r.stdout.contains("page4 0300fe00"))
    #expect(r.stdout.contains("atr 3b8f8001804f0ca0000003060300030000000068"))
  }

  /// pcsc_scan prints the ATR the virtual reader built and names it from pcsc-tools' ATR list,
  /// as it does for the real reader with the real tag.
  @Test(arguments: [
    ("ntag215", "acr122u", "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", "MIFARE Ultralight"),
    ("topaz512", "acr122u", "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F", "NFC FORUM TYPE 1 TAG"),
    ("felica-lite-s", "acr122u", "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 11 00 00 00 00 8A", "Android phone"),
    ("icode-slix2", "part3", "3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77", "Philips ICode"),
  ])
  func pcscScanShowsAndNamesTheATR(tag: String, face: String, atr: String, name: String) throws {
    let emulator = try Emulator(tag: tag, extra: ["--reader", face])
    defer { emulator.stop() }
    // -t 1: pcsc_scan shows the card and its ATR's analysis, then quits after a second.
    let r = try runProcess(URL(fileURLWithPath: "/usr/bin/timeout"), ["-s", "KILL", "10", "pcsc_scan", "-t", "1"],
                           environment: ["HOME": try Self.atrListHome()], timeout: 15)
    #expect(r.stdout.contains(atr), "\(r.stdout)")
    #expect(r.stdout.contains(name))
  }

  /// A home for pcsc_scan's ATR analysis (pcsc-tools' ATR_analysis) holding Debian's ATR list as
  /// its fresh download, ~/.cache/smartcard_list.txt. An ATR it does not find (another test's
  /// card in the other slot) makes it download the list again when that file is missing or older
  /// than ten hours; offline, that leaves an empty file, which it then reads for ten hours and
  /// names no card. The user's own cache is not touched either.
  static func atrListHome() throws -> String {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-pcsc-scan-\(UUID().uuidString)")
    let cache = home.appendingPathComponent(".cache")
    try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: "/usr/share/pcsc/smartcard_list.txt", toPath: cache.appendingPathComponent("smartcard_list.txt").path)
    return home.path
  }

  @Test func emulateExitsZeroOnCtrlCAndTheCardLeaves() throws {
    let emulator = try Emulator()
    #expect(emulator.stop() == 0)
    let r = try runNFCTag(["readers", "--json"])
    #expect(r.stdout.contains(#""name":"\#(e2eReader)","card":false"#))
  }

  @Test func imageKeepsContentAcrossEmulatorRuns() throws {
    let first = try Emulator(tag: "ntag213")
    #expect(try runNFCTag(["write", "text", "persisted", "--reader", e2eReader]).status == 0)
    first.stop()
    let second = try Emulator(tag: "ntag213", image: first.image)
    defer { second.stop() }
    #expect(try runNFCTag(["read", "--reader", e2eReader]).stdout.contains("persisted"))
  }
}

/// The in-process simulator: the same code above the card transport, no pcscd needed (nor a
/// vpcd slot: these run beside the end-to-end suites).
@Suite struct OnTheSimulator {
  @Test func unreachableVPCDIs69() throws {
    let r = try runNFCTag(["emulate", "--tag", "ntag215", "--vpcd", "127.0.0.1:9"], timeout: 20)
    #expect(r.status == 69)
    #expect(r.stderr.contains("cannot reach vpcd"))
  }

  @Test func writeReadAndPersistThroughAnImage() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-sim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let reader = "sim:ntag213:" + dir.appendingPathComponent("t.bin").path
    let w = try runNFCTag(["write", "smartposter", "https://a.org", "--title", "A", "--reader", reader])
    #expect(w.status == 0, "\(w.stderr)")
    let r = try runNFCTag(["read", "--reader", reader])
    #expect(r.stdout.contains("Smart Poster: https://a.org, title (en) \"A\""))
    #expect(try runNFCTag(["write", "text", String(repeating: "y", count: 200), "--reader", reader]).status == 73)
    #expect(try runNFCTag(["erase", "--reader", reader]).status == 0)
    #expect(try runNFCTag(["read", "--format", "json", "--reader", reader]).stdout == "{\"records\":[]}\n")
  }

  @Test func badSimulatorSpecIsUsage() throws {
    #expect(try runNFCTag(["read", "--reader", "sim:nosuchtag"]).status == 64)
  }
}

/// `scan --continuous` and `doctor` against the real pcscd.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ContinuousScanEndToEnd {
  @Test func reportsEachArrivalOnceAndEndsWithCtrlC() throws {
    let scanner = try ContinuousScan()
    let first = try Emulator(tag: "ntag213")
    _ = try runNFCTag(["readers"])   // give the scanner time to see the tag
    usleep(1_500_000)                // a tag left in place is reported once
    first.stop()
    let second = try Emulator(tag: "ntag215")
    usleep(1_500_000)
    second.stop()
    let (status, lines) = scanner.interrupt()
    #expect(status == 0)
    #expect(lines.count == 2)
    #expect(lines.first?.contains(#""chip":"NTAG213""#) == true)
    #expect(lines.last?.contains(#""chip":"NTAG215""#) == true)
  }

  @Test func doctorPassesWithPcscdAndTheVirtualReaders() throws {
    let r = try runNFCTag(["doctor"])
    #expect(r.stdout.contains("ok    pcscd answers"))
    #expect(r.stdout.contains("ok    reader 0: Virtual PCD 00 00"))
    // A kernel pn533 driver on the machine is the only thing that may fail it.
    #expect(r.status == 0 || r.stdout.contains("pn533"))
  }

  @Test func doctorSaysHowToStartPcscd() throws {
    let r = try runNFCTag(["doctor"], environment: ["PCSCLITE_CSOCK_NAME": "/nonexistent/pcscd.comm"])
    #expect(r.status == 69)
    #expect(r.stdout.contains("fix: start it"))
  }
}
