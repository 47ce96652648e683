import Foundation
import NFCEmulator
import NFCTestSupport
import Testing

/// A FeliCa Lite-S image of only the 14 user blocks (S_PAD0–13, 224 bytes), as nfcpy and other
/// tools keep one: it loads with factory system blocks and is written back in the same form.
@Suite struct FeliCaUserBlockImageTests {
  func userBlocks() -> [UInt8] {
    var blocks = [UInt8](repeating: 0, count: 224)
    // The attribute block: Ver 10, Nbr 4, Nbw 1, Nmaxb 13, RWFlag 01, Ln 3, checksum.
    let attribute = hex("10 04 01 000D 00000000 00 01 000003")
    blocks.replaceSubrange(0..<14, with: attribute)
    let sum = attribute.reduce(0) { $0 + Int($1) }
    blocks[14] = UInt8(sum >> 8)
    blocks[15] = UInt8(sum & 0xFF)
    blocks.replaceSubrange(16..<19, with: hex("D0 00 00"))  // an empty record
    return blocks
  }

  @Test func userBlocksLoadWithFactorySystemBlocks() throws {
    let tag = try VirtualTagKind.felicaLiteS.makeTag(image: userBlocks(), uid: hex("0102030405060708"))
    let full = tag.memoryImage
    #expect(full.count == 320)
    #expect(Array(full.prefix(224)) == userBlocks())
    #expect(tag.identifier == hex("0102030405060708"))
    #expect(Array(full[288..<293]) == hex("FF FF FF 01 07"))   // MC as formatted: NDEF on
  }

  @Test func otherSizesAreRefused() throws {
    #expect(throws: EmulatorError.self) { try VirtualTagKind.felicaLiteS.makeTag(image: [UInt8](repeating: 0, count: 223)) }
    #expect(throws: EmulatorError.self) { try FeliCaLiteSVirtualTag(userBlocks: [UInt8](repeating: 0, count: 320)) }
  }

  @Test func aShortImageFileStaysShort() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("felica-\(UUID().uuidString).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = FileManager.default.createFile(atPath: path, contents: Data(userBlocks()))
    let (file, tag) = try ImageFile.open(path: path, kind: .felicaLiteS, uid: nil)
    // WRITE WITHOUT ENCRYPTION of block 1 (service 0009h): `20 08 IDm 01 0900 01 8001 data`.
    let data = [UInt8](repeating: 0xAB, count: 16)
    let write = [UInt8(32), 0x08] + tag.identifier + hex("01 0900 01 8001") + data
    #expect(tag.respond(to: write) == .data([0x0C, 0x09] + tag.identifier + hex("00 00")))
    try file.saveIfChanged(tag)
    let saved = try #require(FileManager.default.contents(atPath: path))
    #expect(saved.count == 224)
    #expect(Array(saved[16..<32]) == data)
  }
}
