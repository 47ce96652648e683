import Foundation
import Testing

/// NTAG password protection from the command line: the password comes from a file or an
/// environment variable, never argv, and never shows in the trace.
@Suite struct PasswordCommands {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-pwd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func file(_ name: String, _ text: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  @Test func setThenWriteNeedsThePasswordThenRemove() throws {
    let reader = "sim:ntag215:" + directory.appendingPathComponent("tag.bin").path
    #expect(try runTool(["write", "text", "before", "--reader", reader]).status == 0)
    let set = try runTool(["password", "set", "--new-password-env", "NFCTAG_TEST_PWD", "--pack", "beef", "--reader", reader],
                            environment: ["NFCTAG_TEST_PWD": "1a2b3c4d"])
    #expect(set.status == 0, "\(set.stderr)")
    // Traced, neither the new password nor the PACK shows.
    let traced = try runTool(["password", "set", "--new-password-env", "NFCTAG_TEST_PWD", "--pack", "beef",
                                "--tag-password-env", "NFCTAG_TEST_PWD", "--trace", "--reader", reader],
                               environment: ["NFCTAG_TEST_PWD": "1a2b3c4d"])
    #expect(traced.status == 0, "\(traced.stderr)")
    #expect(!traced.stderr.contains("1a 2b 3c 4d"))
    #expect(!traced.stderr.contains("be ef"))
    #expect(traced.stderr.contains("a2 86 ********"))  // the PWD page of an NTAG215 (86h), data masked

    // Reads stay open (writes only are protected); a write without the password is refused: 77.
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("before"))
    let refused = try runTool(["write", "text", "after", "--reader", reader])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.contains("password"))
    #expect(refused.stderr.split(separator: "\n").count == 1)

    // A wrong password: 77, "authentication failed".
    let wrong = try runTool(["write", "text", "after", "--tag-password-file", try file("bad", "00000000\n"), "--reader", reader])
    #expect(wrong.status == 77)
    #expect(wrong.stderr.contains("authentication failed"))

    // The right one, from a file: written; the trace masks it.
    let good = try file("good", "1a2b3c4d\n")
    let write = try runTool(["write", "text", "after", "--tag-password-file", good, "--trace", "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    #expect(write.stderr.contains("1b ********"))
    #expect(!write.stderr.contains("1a 2b 3c 4d"))
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("after"))

    #expect(try runTool(["password", "remove", "--reader", reader]).status == 64)
    let remove = try runTool(["password", "remove", "--tag-password-file", good, "--reader", reader])
    #expect(remove.status == 0, "\(remove.stderr)")
    #expect(try runTool(["write", "text", "open again", "--reader", reader]).status == 0)
    #expect(try runTool(["info", "--reader", reader]).stdout.contains("off (AUTH0 ff)"))
  }

  @Test func badPasswordInputIsUsage() throws {
    let reader = "sim:ntag215"
    #expect(try runTool(["read", "--tag-password-file", try file("short", "1a2b\n"), "--reader", reader]).status == 64)
    #expect(try runTool(["read", "--tag-password-env", "NFCTAG_NO_SUCH_VARIABLE", "--reader", reader]).status == 64)
    #expect(try runTool(["read", "--tag-password-file", directory.appendingPathComponent("none").path, "--reader", reader]).status == 66)
    #expect(try runTool(["password", "set", "--reader", reader]).status == 64)
  }

  /// A Wi-Fi key travels in the written pages: the trace masks that write.
  @Test func theTraceOfAWiFiWriteDoesNotShowTheKey() throws {
    let reader = "sim:ntag215:" + directory.appendingPathComponent("wifi.bin").path
    let key = try file("key.txt", "supersecretkey\n")
    let r = try runTool(["write", "wifi", "--ssid", "Home", "--password-file", key, "--trace", "--reader", reader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("trace: >"))
    #expect(!r.stderr.contains("73 75 70 65 72"))  // "super"
    #expect(try runTool(["read", "--show-secrets", "--reader", reader]).stdout.contains("supersecretkey"))
  }

  /// A read-protected tag read without its password is 77, not "tap again".
  @Test func aReadProtectedTagAsksForItsPassword() throws {
    let reader = "sim:ntag215:" + directory.appendingPathComponent("protected.bin").path
    #expect(try runTool(["write", "text", "hidden", "--reader", reader]).status == 0)
    let set = try runTool(["password", "set", "--new-password-env", "NFCTAG_TEST_PWD", "--protect-reads", "--reader", reader],
                            environment: ["NFCTAG_TEST_PWD": "1a2b3c4d"])
    #expect(set.status == 0, "\(set.stderr)")
    let refused = try runTool(["read", "--reader", reader])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.contains("read-protected"))
    #expect(refused.stderr.contains("give its password"))
    #expect(!refused.stderr.contains("tap"))
    let read = try runTool(["read", "--tag-password-env", "NFCTAG_TEST_PWD", "--reader", reader],
                             environment: ["NFCTAG_TEST_PWD": "1a2b3c4d"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("hidden"))
  }
}
