import DESFireEmulator
import Foundation
import NFCEmulator
import Testing

/// `nfctag format --key-type aes --ndef-size N` on a MIFARE DESFire: the NDEF application's key
/// type and the NDEF file's size; every refusal before the first write.
@Suite struct DESFireFormatOptionsCLI {
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-options-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func factoryImage(_ chip: DESFireChip = .ev1With4K) throws -> String {
    let path = directory.appendingPathComponent("card-\(UUID().uuidString).img").path
    try Data(try DESFireVirtualTag(chip: chip).memoryImage).write(to: URL(fileURLWithPath: path))
    return path
  }

  func card(_ path: String, _ chip: DESFireChip = .ev1With4K) throws -> DESFireVirtualTag {
    try DESFireImage.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))), chip: chip)
  }

  @Test func anAESApplicationWithTheSizeAsked() throws {
    let image = try factoryImage()
    let reader = "sim:desfire-ev1-4k:\(image)"
    let r = try runTool(["format", "--key-type", "aes", "--ndef-size", "1000", "--reader", reader])
    #expect(r.status == 0, "\(r.stderr)")
    let app = try #require(try card(image).applications.first)
    #expect(app.keys.map(\.type) == [.aes])
    let info = try runTool(["info", "--reader", reader])
    #expect(info.stdout.contains("e104, 1000 bytes"), "\(info.stdout)")
    #expect(try runTool(["write", "text", "aes app", "--reader", reader]).status == 0)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("aes app"))
  }

  @Test func refusalsComeBeforeTheFirstWrite() throws {
    // Too big for the card: 65, the card untouched.
    let small = try factoryImage(.ev1With2K)
    let before = try Data(contentsOf: URL(fileURLWithPath: small))
    let big = try runTool(["format", "--ndef-size", "4000", "--reader", "sim:desfire-ev1-2k:\(small)"])
    #expect(big.status == 65, "\(big.stderr)")
    #expect(big.stderr.contains("not enough free memory"), "\(big.stderr)")
    #expect(big.stderr.split(separator: "\n").count == 1)
    #expect(try Data(contentsOf: URL(fileURLWithPath: small)) == before)
    // Out of the CC's range: 64.
    for size in ["2", "32768", "-1"] {
      #expect(try runTool(["format", "--ndef-size", size, "--reader", "sim:desfire-ev1-2k:\(small)"]).status == 64, "\(size)")
    }
    #expect(try runTool(["format", "--key-type", "3des", "--reader", "sim:desfire-ev1-2k:\(small)"]).status == 64)
    // An application a cut run left with DES keys is not changed to AES: 65, nothing more written.
    let cut = try factoryImage()
    let tag = try card(cut)
    _ = tag.respond(to: [0x90, 0xCA, 0x00, 0x00, 0x0E, 0x01, 0x00, 0x00, 0x0F, 0x21, 0x10, 0xE1,
                         0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
    #expect(tag.applications.count == 1)
    try Data(tag.memoryImage).write(to: URL(fileURLWithPath: cut))
    let half = try Data(contentsOf: URL(fileURLWithPath: cut))
    let aes = try runTool(["format", "--key-type", "aes", "--reader", "sim:desfire-ev1-4k:\(cut)"])
    #expect(aes.status == 65, "\(aes.stderr)")
    #expect(aes.stderr.contains("does not change them"), "\(aes.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: cut)) == half)
  }

  /// On a card whose NDEF application is whole, the options are checked against it too: `format`
  /// writes its empty message only when they match.
  @Test func aWholeApplicationIsCheckedAgainstTheOptions() throws {
    let image = try factoryImage()
    let reader = "sim:desfire-ev1-4k:\(image)"
    #expect(try runTool(["format", "--ndef-size", "500", "--reader", reader]).status == 0)
    #expect(try runTool(["write", "text", "kept", "--reader", reader]).status == 0)
    let written = try Data(contentsOf: URL(fileURLWithPath: image))
    let aes = try runTool(["format", "--key-type", "aes", "--reader", reader])
    #expect(aes.status == 65, "\(aes.stderr)")
    #expect(aes.stderr.contains("exists with DES keys") || aes.stderr.contains("does not change them"), "\(aes.stderr)")
    let size = try runTool(["format", "--ndef-size", "600", "--reader", reader])
    #expect(size.status == 65, "\(size.stderr)")
    #expect(size.stderr.contains("500 bytes, not 600"), "\(size.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == written)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("kept"))
    // The options it was made with: the empty message.
    #expect(try runTool(["format", "--ndef-size", "500", "--key-type", "des", "--reader", reader]).status == 0)
    let empty = try runTool(["read", "--reader", reader])
    #expect(empty.status == 0 && !empty.stdout.contains("kept"), "\(empty.stdout)")
  }
}
