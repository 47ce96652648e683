import DESFireEmulator
import Foundation
import Testing

/// `nfctag lock` of a MIFARE DESFire holding AN11004's NDEF application, in process on `sim:`
/// readers: the NDEF file write-never (ChangeFileSettings under the application's key 0), then the
/// CC's write access FFh (docs/desfire.md, "lock"). The cuts at each command are
/// DESFireTagTests.DESFireHostLockTests'.
@Suite struct DESFireLockCLI {
  init() { DESFireEmulator.register() }   // the in-process runner calls no `main`

  static func imagePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("desfire-lock-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).img").path
  }

  @Test(arguments: ["sim:desfire-ev1-4k", "sim:desfire-ev1-4k@acr1552u"])
  func lockMakesAFormattedCardReadOnly(face: String) throws {
    let image = Self.imagePath()
    defer { try? FileManager.default.removeItem(atPath: image) }
    let reader = "\(face):\(image)"
    #expect(try runTool(["format", "--reader", reader]).status == 0)
    let write = try runTool(["write", "url", "https://example.com/locked", "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    // Without --yes: 64, nothing sent.
    let before = try Data(contentsOf: URL(fileURLWithPath: image))
    let refused = try runTool(["lock", "--reader", reader])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == before)

    let lock = try runTool(["lock", "--yes", "--reader", reader])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(lock.stderr.contains("now read-only"), "\(lock.stderr)")
    let locked = try Data(contentsOf: URL(fileURLWithPath: image))
    let rewrite = try runTool(["write", "url", "https://example.com/other", "--reader", reader])
    #expect(rewrite.status == 77, "\(rewrite.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == locked)
    let read = try runTool(["read", "--reader", reader])
    #expect(read.status == 0 && read.stdout.contains("https://example.com/locked"), "\(read.stdout)")
    let info = try runTool(["info", "--json", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("\"readOnly\""), "\(info.stdout)")
    let again = try runTool(["lock", "--yes", "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already read-only"), "\(again.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == locked)
  }

  @Test func anAESApplicationLocksWithItsKeyFromTheEnvironment() throws {
    let image = Self.imagePath()
    defer { try? FileManager.default.removeItem(atPath: image) }
    let reader = "sim:desfire-ev1-4k:\(image)"
    #expect(try runTool(["format", "--key-type", "aes", "--reader", reader]).status == 0)
    #expect(try runTool(["write", "url", "https://example.com/aes", "--reader", reader]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: image))
    // Not a key: 64, never shown; a wrong key: 77; nothing changed either way.
    let bad = try runTool(["lock", "--yes", "--auth-key-env", "LOCK_KEY", "--reader", reader], environment: ["LOCK_KEY": "0011zz"])
    #expect(bad.status == 64, "\(bad.stderr)")
    #expect(!bad.stderr.contains("0011zz"))
    let wrong = try runTool(["lock", "--yes", "--auth-key-env", "LOCK_KEY", "--reader", reader],
                            environment: ["LOCK_KEY": "00112233445566778899AABBCCDDEEFF"])
    #expect(wrong.status == 77, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("--auth-key-file"), "\(wrong.stderr)")
    #expect(!wrong.stderr.contains("00112233"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == before)
    // The application's zero AES key, given: locked.
    let lock = try runTool(["lock", "--yes", "--auth-key-env", "LOCK_KEY", "--reader", reader],
                           environment: ["LOCK_KEY": String(repeating: "0", count: 32)])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(try runTool(["write", "url", "https://example.com/other", "--reader", reader]).status == 77)
    #expect(try runTool(["lock", "--yes", "--reader", reader]).stderr.contains("already read-only"))
  }

  @Test func aFactoryCardIsNotNDEFFormatted() throws {
    let lock = try runTool(["lock", "--yes", "--reader", "sim:desfire-ev1-4k"])
    #expect(lock.status == 65, "\(lock.stderr)")
    #expect(lock.stderr.contains("not NDEF formatted"), "\(lock.stderr)")
  }
}
