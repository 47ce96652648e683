import DESFireEmulator
import Foundation
@testable import NFCEmulator
import Testing

/// `nfctag format` on a MIFARE DESFire Light, in process, on `sim:desfire-light:IMAGE`: the NDEF
/// setup m5stack/M5Unit-NFC's `prepare_desfire_light` makes (files 00h/04h renamed E103h/E104h,
/// plain and free, the DF D2760000850101/E110h, the CC), authenticated with the application's key
/// 0 from `--picc-key-file` (docs/desfire.md, "DESFire Light"); then `write` and `read` work.
@Suite final class DESFireLightFormatCLITests {
  let scratch: ScratchFolder
  var directory: URL { scratch.url }

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    scratch = try ScratchFolder("nfctag-light-format")
  }

  func path(_ name: String) -> String { scratch.path(name) }

  func keyFile(_ name: String, _ hex: String) throws -> String { try scratch.keyFile(name, hex) }

  @Test func formatSetsTheLightUpThenWriteAndReadWork() throws {
    let reader = "sim:desfire-light:" + path("light.img")
    let key = try keyFile("key0", String(repeating: "0", count: 32))
    let format = try runTool(["format", "--reader", reader, "--picc-key-file", key, "--picc-key-type", "aes"])
    #expect(format.status == 0, "\(format.stderr)")
    let write = try runTool(["write", "url", "https://example.com/light", "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    let read = try runTool(["read", "--reader", reader])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("https://example.com/light"), "\(read.stdout)")
    // The card as the setup leaves it.
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(image: Array(Data(contentsOf: URL(fileURLWithPath: path("light.img")))))
                           as? DESFireVirtualTag)
    let application = try #require(tag.applications.first)
    #expect(application.dfName == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01] && application.isoFileID == 0xE110)
    #expect(application.files[0x00]?.isoFileID == 0xE103 && application.files[0x04]?.isoFileID == 0xE104)
    #expect(application.files[0x04]?.access == DESFireAccessRights(word: 0xEEE0) && application.files[0x04]?.communication == .plain)
    // Again: already set up, the message emptied as any format empties it.
    let again = try runTool(["format", "--reader", reader, "--picc-key-file", key, "--picc-key-type", "aes"])
    #expect(again.status == 0, "\(again.stderr)")
    let empty = try runTool(["read", "--reader", reader])
    #expect(!empty.stdout.contains("example.com"), "\(empty.stdout)")
  }

  @Test func withoutAKeyTheFactoryKeyIsUsed() throws {
    let reader = "sim:desfire-light:" + path("factory.img")
    let format = try runTool(["format", "--reader", reader])
    #expect(format.status == 0, "\(format.stderr)")
    #expect(try runTool(["write", "text", "hello light", "--reader", reader]).status == 0)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("hello light"))
  }

  @Test func aKeyThatIsNotAESIs64() throws {
    let reader = "sim:desfire-light:" + path("des.img")
    let format = try runTool(["format", "--reader", reader, "--picc-key-file", try keyFile("des", "0000000000000000")])
    #expect(format.status == 64, "\(format.stderr)")
    #expect(format.stderr.contains("--picc-key-type aes"), "\(format.stderr)")
    #expect(format.stderr.split(separator: "\n").count == 1, "\(format.stderr)")
    #expect(try runTool(["read", "--reader", reader]).status == 65)   // still not NDEF formatted
  }

  @Test func aWrongKeyIs77OneLineAndNothingIsWritten() throws {
    let name = "wrong.img"
    let reader = "sim:desfire-light:" + path(name)
    #expect(try runTool(["scan", "--reader", reader]).status == 0)   // the image made
    let before = try Data(contentsOf: directory.appendingPathComponent(name))
    let wrong = "0F0E0D0C0B0A09080706050403020100"
    let format = try runTool(["format", "--reader", reader, "--picc-key-file", try keyFile("wrong", wrong), "--picc-key-type", "aes"])
    #expect(format.status == 77, "\(format.stderr)")
    #expect(format.stderr.split(separator: "\n").count == 1, "\(format.stderr)")
    #expect(!format.stderr.uppercased().contains("0F0E0D"))
    #expect(try Data(contentsOf: directory.appendingPathComponent(name)) == before)
  }
}
