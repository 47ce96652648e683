import Foundation
import Testing

/// `info` on a read-protected NTAG without its password shows the chip and what
/// the tag lets be read (GET_VERSION, the pages before AUTH0), says the rest is read-protected in
/// one line, and exits 77.
@Suite struct ReadProtectedInfo {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-rp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A simulated NTAG215 holding "secret", its reads protected from `page`.
  func protectedTag(fromPage page: Int) throws -> (reader: String, password: String) {
    let reader = "sim:ntag215:" + directory.appendingPathComponent("tag-\(page).bin").path
    let password = directory.appendingPathComponent("pw.txt")
    try Data("1a2b3c4d\n".utf8).write(to: password)
    #expect(try runTool(["write", "text", "secret", "--reader", reader]).status == 0)
    let set = try runTool(["password", "set", "--new-password-file", password.path, "--protect-reads",
                             "--from-page", String(page), "--reader", reader])
    #expect(set.status == 0, "\(set.stderr)")
    return (reader, password.path)
  }

  @Test func showsTheChipAndThePagesBeforeAUTH0ThenExits77() throws {
    let (reader, _) = try protectedTag(fromPage: 4)
    let r = try runTool(["info", "--reader", reader])
    #expect(r.status == 77, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("chip:                NTAG215 (Type 2)"), "\(r.stdout)")
    #expect(r.stdout.contains("version:             00 04 04 02 01 00 11 03"))  // GET_VERSION
    #expect(r.stdout.contains("cc:                  e1 10 3e 00"))             // page 3
    #expect(r.stdout.contains("static lock bytes 00 00 (none set)"))           // page 2
    #expect(r.stdout.contains("ndef:                read-protected from page 4"))
    #expect(r.stdout.contains("Password protection: reads and writes from page 04 (AUTH0)"))
    #expect(!r.stdout.contains("secret"))
    #expect(r.stderr == "nfctag: the tag is read-protected from page 4: give its password with --tag-password-file or --tag-password-env\n")
  }

  @Test func findsAUTH0WhereverItIs() throws {
    let (reader, _) = try protectedTag(fromPage: 0x10)
    let r = try runTool(["info", "--format", "json", "--reader", reader])
    #expect(r.status == 77, "\(r.stderr)")
    #expect(r.stdout.contains(#""readProtected":{"fromPage":16},"ndef":null"#), "\(r.stdout)")
    #expect(r.stdout.contains(#""readablePages":{"first":0,"count":16}"#))
    #expect(r.stdout.contains(#""passwordProtection":{"protects":"readsAndWrites","auth0":16}"#))
    #expect(r.stdout.contains(#""version":"0004040201001103""#))
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  @Test func withThePasswordEverythingShowsAndExits0() throws {
    let (reader, password) = try protectedTag(fromPage: 4)
    let r = try runTool(["info", "--tag-password-file", password, "--reader", reader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("ndef:                  read/write, capacity 492 bytes, message 13 bytes"), "\(r.stdout)")
    #expect(!r.stdout.contains("read-protected"))
  }
}

/// The same through the real pcscd and `nfctag emulate`: the refused reads and the reselections
/// go through the ACR122U face.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ReadProtectedInfoEndToEnd {
  @Test func showsWhatItCanAndExits77() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let password = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-rp-\(UUID().uuidString).txt")
    try Data("1a2b3c4d\n".utf8).write(to: password)
    defer { try? FileManager.default.removeItem(at: password) }
    #expect(try runNFCTag(["write", "text", "secret", "--reader", e2eReader]).status == 0)
    let set = try runNFCTag(["password", "set", "--new-password-file", password.path, "--protect-reads", "--reader", e2eReader])
    #expect(set.status == 0, "\(set.stderr)")
    let r = try runNFCTag(["info", "--reader", e2eReader, "--timeout", "5"])
    #expect(r.status == 77, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("NTAG213"))
    #expect(r.stdout.contains("read-protected from page 4"))
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(r.stderr.contains("give its password"))
  }
}

/// `scan` on a read-protected tag describes what it identified (reader, UID, chip), then says why
/// it stops, as `info` does, and exits 77.
@Suite struct ReadProtectedScan {
  @Test func showsWhatItIdentifiedThenTheReasonAndExits77() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-rps-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:ntag215:" + directory.appendingPathComponent("tag.bin").path
    let password = directory.appendingPathComponent("pw.txt")
    try Data("1a2b3c4d\n".utf8).write(to: password)
    #expect(try runTool(["write", "text", "secret", "--reader", reader]).status == 0)
    #expect(try runTool(["password", "set", "--new-password-file", password.path, "--protect-reads", "--reader", reader]).status == 0)

    let r = try runTool(["scan", "--reader", reader])
    #expect(r.status == 77, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("uid:    04:a1:b2:c3:d4:e5:80"), "\(r.stdout)")
    #expect(r.stdout.contains("chip:   NTAG215 (Type 2)"))
    #expect(r.stdout.contains("ndef:   read-protected from page 4"))
    #expect(!r.stdout.contains("secret"))
    #expect(r.stderr == "nfctag: the tag is read-protected from page 4: give its password with --tag-password-file or --tag-password-env\n")

    let json = try runTool(["scan", "--format", "json", "--reader", reader])
    #expect(json.status == 77)
    #expect(json.stdout.contains(#""uid":"04a1b2c3d4e580""#), "\(json.stdout)")
    #expect(json.stdout.contains(#""chip":"NTAG215","readProtected":{"fromPage":4},"ndef":null"#))
    #expect(json.stdout.contains(#""error":"the tag is read-protected from page 4"#))

    let unlocked = try runTool(["scan", "--tag-password-file", password.path, "--reader", reader])
    #expect(unlocked.status == 0, "\(unlocked.stderr)")
    #expect(unlocked.stdout.contains("Text (en, utf-8): secret"))
  }
}
