import DESFireEmulator
import Foundation
import Testing
@testable import NFCTagCLI
@testable import nfctag_provision

/// `nfctag sdm setup` on a MIFARE DESFire EV3, in process, on `sim:desfire-ev3-8k:IMAGE` (the card
/// kept in an image file between commands, its SDM settings and SDMReadCtr too): `format --key-type
/// aes`, `sdm setup`, then 20 reads each verified by `sdm verify` with the keys from files, the
/// counter rising; the refusals (64, the image unchanged) of an EV2, of an EV3 whose NDEF
/// application has DES keys and of one whose NDEF file was not created for SDM.
@Suite final class SDMSetupDESFireCLITests {
  let scratch: ScratchFolder
  var directory: URL { scratch.url }
  static let template = "https://sun.example/t?p={picc}&c={cmac}"

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    scratch = try ScratchFolder("nfctag-sdm-desfire")
  }

  func path(_ name: String) -> String { scratch.path(name) }

  func keyFile(_ name: String, _ hex: String) throws -> String { try scratch.keyFile(name, hex) }

  func image(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

  @Test func setupOnAnEV3ThenTwentyVerifiedReads() throws {
    let reader = "sim:desfire-ev3-8k:" + path("ev3.bin")
    let format = try runTool(["format", "--key-type", "aes", "--reader", reader, "--quiet"])
    #expect(format.status == 0, "\(format.stderr)")
    let zero = String(repeating: "0", count: 32)
    let key0 = try keyFile("key0", zero), meta = try keyFile("meta", zero), file = try keyFile("file", zero)
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--auth-key-file", key0,
                             "--meta-key-file", meta, "--file-key-file", file, "--format", "json"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let result = try jsonObject(setup.stdout)
    #expect(result["verified"] as? Bool == true && result["counter"] as? Int == 1, "\(setup.stdout)")
    #expect(!setup.stderr.contains(zero))
    let store = path("counters.txt")
    for n in 2...21 {
      let url = try tappedURL(reader)
      #expect(url.hasPrefix("https://sun.example/t?p="), "\(url)")
      let v = try runTool(["sdm", "verify", url, "--meta-key-file", meta, "--file-key-file", file,
                           "--counter-store", store, "--format", "json", "--quiet"])
      #expect(v.status == 0, "read \(n): \(v.stderr)")
      #expect(try jsonObject(v.stdout)["counter"] as? Int == n, "\(v.stdout)")
    }
  }

  @Test func anEV2IsRefusedBeforeAnyWrite() throws {
    let reader = "sim:desfire-ev2-8k:" + path("ev2.bin")
    #expect(try runTool(["format", "--key-type", "aes", "--reader", reader, "--quiet"]).status == 0)
    let before = try image("ev2.bin")
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(setup.status == 64, "\(setup.stderr)")
    #expect(setup.stderr.contains("SDM needs a DESFire EV3, a DESFire Light or an NTAG 424 DNA"), "\(setup.stderr)")
    #expect(setup.stderr.split(separator: "\n").count == 1, "\(setup.stderr)")
    #expect(try image("ev2.bin") == before)
  }

  @Test func anEV3WithDESKeysIsRefusedBeforeAnyWrite() throws {
    let reader = "sim:desfire-ev3-8k:" + path("des.bin")
    #expect(try runTool(["format", "--reader", reader, "--quiet"]).status == 0)
    let before = try image("des.bin")
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(setup.status == 64, "\(setup.stderr)")
    #expect(setup.stderr.contains("`nfctag format --key-type aes`") && setup.stderr.contains("erases"), "\(setup.stderr)")
    #expect(try image("des.bin") == before)
  }

  /// An image formatted on an EV2 (its NDEF file without FileOption bit 6) loaded as an EV3.
  @Test func anEV3WhoseNDEFFileLacksSDMIsRefusedBeforeAnyWrite() throws {
    let name = "nobit6.bin"
    #expect(try runTool(["format", "--key-type", "aes", "--reader", "sim:desfire-ev2-8k:" + path(name), "--quiet"]).status == 0)
    #expect(try runTool(["write", "text", "before", "--reader", "sim:desfire-ev2-8k:" + path(name), "--quiet"]).status == 0)
    let before = try image(name)
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", "sim:desfire-ev3-8k:" + path(name), "--quiet"])
    #expect(setup.status == 64, "\(setup.stderr)")
    #expect(setup.stderr.contains("FileOption bit 6") && setup.stderr.contains("`nfctag format --key-type aes`"), "\(setup.stderr)")
    #expect(try image(name) == before)
  }
}
