import Foundation
import Testing

/// The session layer end to end: the tool's commands, `send`, and the example programs a library
/// user writes, against the real pcscd and `nfctag emulate`.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct SessionEndToEnd {
  func example(_ name: String) -> URL { nfctagBinary().deletingLastPathComponent().appendingPathComponent(name) }

  @Test func sendPrintsTheGetVersionAnswerOfAnNTAG215() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let r = try runNFCTag(["send", "60", "3000", "30ff", "--reader", e2eReader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("> 60\n< 00 04 04 02 01 00 11 03\n"))  // NTAG215's GET_VERSION
    #expect(r.stdout.contains("> 30 00\n< 04 a1 b2"))                  // READ page 0: the UID
    #expect(r.stdout.contains("NAK 0"))                                  // READ past the end
    let json = try runNFCTag(["send", "60", "--format", "json", "--reader", e2eReader])
    #expect(json.stdout.contains(#""kind":"miFare""#))
    #expect(json.stdout.contains(#"{"command":"60","response":"0004040201001103"}"#))
  }

  @Test func sendAPDUsToAType4TagNamesTheStatusWord() throws {
    let emulator = try Emulator(tag: "type4")
    defer { emulator.stop() }
    let r = try runNFCTag(["send", "--apdu", "00a4040007d276000085010100", "00a4040007a0000000000000", "--reader", e2eReader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("90 00  (9000: success)"))
    #expect(r.stdout.contains("6a 82  (6a82: file or application not found)"))
  }

  @Test func sendAnAPDUToAType2TagIsBadData() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let r = try runNFCTag(["send", "--apdu", "00a4040000", "--reader", e2eReader])
    #expect(r.status == 65)
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  @Test func ctrlCWhileWaitingIsUserCancel130() throws {
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["read", "--reader", e2eReader, "--timeout", "30"]
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    usleep(700_000)
    kill(process.processIdentifier, SIGINT)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    #expect(!process.isRunning)
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 130, "\(stderr)")
    #expect(stderr == "nfctag: cancelled\n")
  }

  @Test(.virtualReaders) func continuousScanEndsAfterItsIdleTimeout() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let r = try runNFCTag(["scan", "--continuous", "--json", "--timeout", "1", "--reader", e2eReader], timeout: 20)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").count == 1)
    #expect(r.stdout.contains(#""chip":"NTAG213""#))
    let idle = try runNFCTag(["scan", "--continuous", "--timeout", "1", "--reader", "Virtual PCD 00 00"], timeout: 20)
    #expect(idle.status == 75, "\(idle.stderr)")
    #expect(idle.stdout.isEmpty)
  }

  @Test func writeTextAndScanTagsAreLibraryUsersOnARealReader() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let write = try runProcess(example("WriteText"), ["--reader", e2eReader, "hello"])
    #expect(write.status == 0, "\(write.stdout)\(write.stderr)")
    #expect(write.stdout.contains("Wrote \"hello\""))
    let read = try runNFCTag(["read", "--reader", e2eReader])
    #expect(read.stdout.contains("hello"))
    let scan = try runProcess(example("ScanTags"), ["--reader", e2eReader, "--timeout", "1"], timeout: 20)
    #expect(scan.status == 0, "\(scan.stdout)\(scan.stderr)")
    #expect(scan.stdout.contains("Text (en): hello"))
  }
}

/// Authentication ends with the command that authenticated: the card is
/// reset when the session releases it, so a following command without the password gets 77.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct AuthenticationEndsWithTheCommandEndToEnd {
  @Test func aWriteAfterAnAuthenticatedReadNeedsThePasswordAgain() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-auth-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let password = directory.appendingPathComponent("pw.txt")
    try Data("1a2b3c4d\n".utf8).write(to: password)
    #expect(try runNFCTag(["write", "text", "mine", "--reader", e2eReader]).status == 0)
    let set = try runNFCTag(["password", "set", "--new-password-file", password.path, "--reader", e2eReader])
    #expect(set.status == 0, "\(set.stderr)")
    let read = try runNFCTag(["read", "--tag-password-file", password.path, "--reader", e2eReader])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("mine"))
    for command in [["write", "text", "theirs"], ["erase"], ["password", "set", "--new-password-file", password.path]] {
      let r = try runNFCTag(command + ["--reader", e2eReader])
      #expect(r.status == 77, "\(command): \(r.stderr)")
    }
    // Raw commands too: a PWD_AUTH sent with `send` does not outlive it.
    #expect(try runNFCTag(["send", "1b1a2b3c4d", "--reader", e2eReader]).status == 0)
    #expect(try runNFCTag(["write", "text", "theirs", "--reader", e2eReader]).status == 77)
    #expect(try runNFCTag(["read", "--reader", e2eReader]).stdout.contains("mine"))
  }
}

/// `info` with the tag removed part-way: 74 and nothing on stdout.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct InfoWithTheTagRemovedEndToEnd {
  @Test func isAnIOErrorWithNothingHalfPrinted() throws {
    // info on an NTAG215: GET_VERSION, UID, FAST_READ 00-3E, then the dynamic lock page, the
    // configuration pages and READ_SIG. The tag leaves after the fourth.
    let emulator = try Emulator(tag: "ntag215", extra: ["--remove-after", "4"])
    let r = try runNFCTag(["info", "--reader", e2eReader, "--timeout", "5"])
    #expect(r.status == 74, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(emulator.waitForExit() == 0)
  }
}
