import DESFireEmulator
import Foundation
@testable import NFCEmulator
import Testing

/// The MIFARE DESFire Light through the CLI, in process, on `sim:desfire-light` readers: `scan`
/// and `desfire info` name it and list its fixed files, `desfire read-file`/`write-file` reach its
/// Full-mode files by EV2, a factory Light is not NDEF formatted, and `read` reads a Light set up as
/// NDEF (docs/desfire.md, "DESFire Light").
@Suite struct DESFireLightCLI {
  let directory: URL
  let zeroKey: String

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-light-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    zeroKey = directory.appendingPathComponent("zero.key").path
    try Data((String(repeating: "00", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: zeroKey))
  }

  func image() -> String { directory.appendingPathComponent("light-\(UUID().uuidString).img").path }

  @Test(arguments: ["sim:desfire-light", "sim:desfire-light@acr1552u"])
  func scanAndInfoNameTheLight(reader: String) throws {
    let scan = try runTool(["scan", "--reader", reader])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains("MIFARE DESFire Light"), "\(scan.stdout)")
    let info = try runTool(["desfire", "info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("chip:         MIFARE DESFire Light\n"), "\(info.stdout)")
    #expect(info.stdout.contains("application:  DF name a00000039656434103f015400000000b"), "\(info.stdout)")
    #expect(info.stdout.contains("  file 0: standard data, 256 bytes, full, read key 1, write never, read&write key 3, change key 0\n"),
            "\(info.stdout)")
    #expect(info.stdout.contains("  file 31: standard data, 32 bytes, plain, read free, write never, read&write key 3, change key 0\n"),
            "\(info.stdout)")
    for number in [1, 3, 4] { #expect(info.stdout.contains("  file \(number): "), "\(info.stdout)") }
    let apps = try runTool(["desfire", "apps", "--reader", reader])
    #expect(apps.status == 65, "\(apps.stderr)")
    #expect(apps.stderr.contains("a MIFARE DESFire Light has one application"), "\(apps.stderr)")
    #expect(apps.stderr.split(separator: "\n").count == 1, "\(apps.stderr)")
    let json = try runTool(["desfire", "info", "--reader", reader, "--format", "json"])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.contains("\"chip\":\"MIFARE DESFire Light\""), "\(json.stdout)")
    #expect(json.stdout.contains("\"dfName\":\"a00000039656434103f015400000000b\""), "\(json.stdout)")
  }

  @Test func fullModeFilesByEV2() throws {
    let reader = "sim:desfire-light:" + image()
    let app = ["--reader", reader, "--aid", "000001"]
    func key(_ number: Int) -> [String] { ["--key-file", zeroKey, "--key-type", "aes", "--key-no", String(number), "--auth", "ev2"] }
    let read = try runTool(["desfire", "read-file"] + app + ["--file", "0"] + key(1))
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout == String(repeating: "00", count: 256) + "\n")
    let data = (0..<70).map { String(format: "%02x", ($0 * 29 + 3) & 0xFF) }.joined()   // frames both ways
    let write = try runTool(["desfire", "write-file"] + app + ["--file", "4", "--hex", data] + key(3))
    #expect(write.status == 0, "\(write.stderr)")
    let back = try runTool(["desfire", "read-file"] + app + ["--file", "4", "--length", "70"] + key(3))
    #expect(back.stdout == data + "\n", "\(back.stderr)")
    // A Light's key authenticates by EV2 without `--auth`: it has no EV1 authentication.
    let plainAuth = try runTool(["desfire", "read-file"] + app + ["--file", "4", "--length", "70", "--key-file", zeroKey,
                                                                 "--key-type", "aes", "--key-no", "1"])
    #expect(plainAuth.stdout == data + "\n", "\(plainAuth.stderr)")
    // Without a key file 0 is refused: 77, one line.
    let refused = try runTool(["desfire", "read-file"] + app + ["--file", "0"])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
  }

  /// A factory Light holds no NDEF application; `format` sets one up (DESFireLightFormatCLITests).
  @Test func aFactoryLightIsNotNDEFFormatted() throws {
    let read = try runTool(["read", "--reader", "sim:desfire-light"])
    #expect(read.status == 65, "\(read.stderr)")
    #expect(read.stderr.contains("not NDEF formatted"), "\(read.stderr)")
  }

  /// A Light set up as m5stack/M5Unit-NFC's `prepare_desfire_light` leaves it: files 00h and 04h
  /// renamed E103h and E104h, plain with free rights, the DF D2760000850101 / E110h, the CC naming
  /// an NDEF file of 256 bytes; `read` reads its message with the Type 4 commands alone.
  @Test func readsALightSetUpAsNDEF() throws {
    let tag = try DESFireVirtualTag.light()
    let payload: [UInt8] = [0x04] + Array("example.com/light".utf8)   // 04h: https://
    let message: [UInt8] = [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
    var application = try #require(tag.applications.first)
    application.dfName = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    application.isoFileID = 0xE110
    let cc: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00]
    application.files[0x00]?.isoFileID = 0xE103
    application.files[0x04]?.isoFileID = 0xE104
    for number: UInt8 in [0x00, 0x04] {
      application.files[number]?.communication = .plain
      application.files[number]?.access = DESFireAccessRights(word: 0xEEEE)
    }
    application.files[0x00]?.data.replaceSubrange(0..<cc.count, with: cc)
    let ndef = [0x00, UInt8(message.count)] + message
    application.files[0x04]?.data.replaceSubrange(0..<ndef.count, with: ndef)
    tag.applications = [application]
    let path = image()
    try Data(tag.memoryImage).write(to: URL(fileURLWithPath: path))
    let read = try runTool(["read", "--reader", "sim:desfire-light:" + path])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("https://example.com/light"), "\(read.stdout)")
  }
}
