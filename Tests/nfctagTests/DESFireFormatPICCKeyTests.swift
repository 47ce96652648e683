import DESFireEmulator
import Foundation
import NFCEmulator
import Testing

/// `nfctag format` on a MIFARE DESFire whose PICC key settings need the PICC master key: the key
/// from `--picc-key-file` or `--picc-key-env`, never argv, traces or errors; a wrong key is 77 and
/// nothing is written.
@Suite struct DESFireFormatPICCKey {
  /// An AES PICC master key 00 11 22 … FF (a byte pattern no frame of a factory card shows).
  static let keyHex = "00112233445566778899AABBCCDDEEFF"
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-picc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A factory EV1 4K whose PICC key settings are 09h (creating and listing need the master key)
  /// and whose PICC master key is AES `keyHex`, as an image file (DESFireImage's layout: the PICC
  /// level's KS1 at byte 19, its key's type at 22, version at 23, value at 24).
  func lockedCardImage() throws -> String {
    var image = try DESFireVirtualTag(chip: .ev1With4K).memoryImage
    try #require(image.count >= 40 && image[19] == 0x0F && image[21] == 1)
    image[19] = 0x09
    image[22] = 0x80
    let key = try #require(Data(hexString: Self.keyHex))
    image.replaceSubrange(24..<40, with: key)
    let path = directory.appendingPathComponent("card.img").path
    try Data(image).write(to: URL(fileURLWithPath: path))
    return path
  }

  func keyFile(_ text: String) throws -> String {
    let path = directory.appendingPathComponent("key-\(UUID().uuidString).txt").path
    try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func withoutTheKeyTheCardIsRefusedAndToldHow() throws {
    let image = try lockedCardImage()
    let r = try runTool(["format", "--reader", "sim:desfire-ev1-4k:\(image)"])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.contains("--picc-key-file"), "\(r.stderr)")
  }

  @Test func theKeyFromAFileFormatsTheCard() throws {
    let image = try lockedCardImage()
    let reader = "sim:desfire-ev1-4k:\(image)"
    let r = try runTool(["format", "--trace", "--reader", reader, "--picc-key-file", try keyFile(Self.keyHex), "--picc-key-type", "aes"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.uppercased().replacingOccurrences(of: " ", with: "").contains("8899AABBCCDD"))
    #expect(try runTool(["write", "text", "hello desfire", "--reader", reader]).status == 0)
    let read = try runTool(["read", "--reader", reader])
    #expect(read.stdout.contains("hello desfire"), "\(read.stdout) \(read.stderr)")
  }

  @Test func theKeyFromTheEnvironmentFormatsTheCard() throws {
    let image = try lockedCardImage()
    let r = try runTool(["format", "--reader", "sim:desfire-ev1-4k:\(image)", "--picc-key-env", "PICC_KEY", "--picc-key-type", "aes"],
                        environment: ["PICC_KEY": Self.keyHex])
    #expect(r.status == 0, "\(r.stderr)")
  }

  @Test func aWrongKeyIs77OneLineAndNothingIsWritten() throws {
    let image = try lockedCardImage()
    let before = try Data(contentsOf: URL(fileURLWithPath: image))
    let wrong = "0F0E0D0C0B0A09080706050403020100"
    let r = try runTool(["format", "--reader", "sim:desfire-ev1-4k:\(image)", "--picc-key-file", try keyFile(wrong), "--picc-key-type", "aes"])
    #expect(r.status == 77, "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(!r.stderr.uppercased().contains("0F0E0D0C"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == before)
  }

  @Test func keysOfTheWrongShapeAre64WithoutTheirDigits() throws {
    let image = try lockedCardImage()
    let reader = "sim:desfire-ev1-4k:\(image)"
    // 16 bytes are 2K3DES or AES: the type must be said.
    let ambiguous = try runTool(["format", "--reader", reader, "--picc-key-file", try keyFile(Self.keyHex)])
    #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
    #expect(ambiguous.stderr.contains("--picc-key-type"))
    #expect(!ambiguous.stderr.uppercased().contains("AABBCC"))
    let short = try runTool(["format", "--reader", reader, "--picc-key-file", try keyFile("00112233445566778899AA"), "--picc-key-type", "aes"])
    #expect(short.status == 64, "\(short.stderr)")
    #expect(!short.stderr.uppercased().contains("778899"))
    // A key on the command line where a file name belongs is refused, not echoed.
    let argv = try runTool(["format", "--reader", reader, "--picc-key-file", Self.keyHex])
    #expect(argv.status == 64, "\(argv.stderr)")
    #expect(!argv.stderr.uppercased().contains("AABBCC"))
  }
}

extension Data {
  fileprivate init?(hexString: String) {
    var bytes: [UInt8] = []
    var chars = hexString.makeIterator()
    while let a = chars.next(), let b = chars.next() {
      guard let v = UInt8(String([a, b]), radix: 16) else { return nil }
      bytes.append(v)
    }
    self.init(bytes)
  }
}
