import DESFireEmulator
import Foundation
@testable import NFCEmulator
import Testing
@testable import NFCTagCLI
@testable import nfctag_provision

/// `nfctag sdm setup` on a MIFARE DESFire Light and on an EV3 with the random ID on, in process,
/// on `sim:` images (docs/desfire.md, "SDM on the virtual EV3" and "DESFire Light"): the Light is
/// set up for NDEF by `format`, `sdm setup` turns SDM on its NDEF file E104h (file 04h) with its
/// own AES keys, then 20 reads each verified by `sdm verify` with the counter rising; on the EV3
/// with a random ID the read-back check and the report use the real UID (GetCardUID).
@Suite final class SDMSetupLightCLITests {
  let scratch: ScratchFolder
  var directory: URL { scratch.url }
  static let template = "https://sun.example/t?p={picc}&c={cmac}"
  static let zero = String(repeating: "0", count: 32)

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    scratch = try ScratchFolder("nfctag-sdm-light")
  }

  func path(_ name: String) -> String { scratch.path(name) }

  func keyFile(_ name: String, _ hex: String) throws -> String { try scratch.keyFile(name, hex) }

  /// `sdm setup` then 20 taps, each verified with the counter one more than the last.
  func setUpAndVerifyTwentyReads(_ reader: String) throws -> [String: Any] {
    let key0 = try keyFile("key0", Self.zero), meta = try keyFile("meta", Self.zero), file = try keyFile("file", Self.zero)
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--auth-key-file", key0,
                             "--meta-key-file", meta, "--file-key-file", file, "--format", "json"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let result = try jsonObject(setup.stdout)
    #expect(result["verified"] as? Bool == true && result["counter"] as? Int == 1, "\(setup.stdout)")
    let store = path("counters.txt")
    for n in 2...21 {
      let url = try tappedURL(reader)
      #expect(url.hasPrefix("https://sun.example/t?p="), "\(url)")
      let v = try runTool(["sdm", "verify", url, "--meta-key-file", meta, "--file-key-file", file,
                           "--counter-store", store, "--format", "json", "--quiet"])
      #expect(v.status == 0, "read \(n): \(v.stderr)")
      #expect(try jsonObject(v.stdout)["counter"] as? Int == n, "\(v.stdout)")
    }
    return result
  }

  @Test func setupOnALightThenTwentyVerifiedReads() throws {
    let reader = "sim:desfire-light:" + path("light.img")
    let format = try runTool(["format", "--reader", reader, "--picc-key-file", try keyFile("fk", Self.zero), "--picc-key-type", "aes",
                              "--quiet"])
    #expect(format.status == 0, "\(format.stderr)")
    let result = try setUpAndVerifyTwentyReads(reader)
    #expect(result["uid"] as? String == DESFireVirtualTag.defaultUID.map { String(format: "%02x", $0) }.joined(), "\(result)")
  }

  @Test func aLightNotSetUpForNDEFIsRefusedBeforeAnyWrite() throws {
    let name = "factory.img"
    let reader = "sim:desfire-light:" + path(name)
    #expect(try runTool(["scan", "--reader", reader, "--quiet"]).status == 0)
    let before = try? Data(contentsOf: directory.appendingPathComponent(name))
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(setup.status == 64, "\(setup.stderr)")
    #expect(setup.stderr.contains("nfctag format"), "\(setup.stderr)")
    #expect(setup.stderr.split(separator: "\n").count == 1, "\(setup.stderr)")
    #expect((try? Data(contentsOf: directory.appendingPathComponent(name))) == before)
  }

  @Test func setupOnAnEV3WithTheRandomIDUsesTheRealUID() throws {
    let name = "random.bin"
    let reader = "sim:desfire-ev3-8k:" + path(name)
    let config = try runTool(["desfire", "config", "random-uid", "--yes", "--reader", reader, "--quiet"])
    #expect(config.status == 0, "\(config.stderr)")
    #expect(try runTool(["format", "--key-type", "aes", "--reader", reader, "--quiet"]).status == 0)
    let result = try setUpAndVerifyTwentyReads(reader)
    let tag = try #require(try VirtualTagKind.desfireEV3With8K.makeTag(image: Array(Data(contentsOf: URL(fileURLWithPath: path(name)))))
                           as? DESFireVirtualTag)
    #expect(tag.configuration.contains(.randomID))
    #expect(result["uid"] as? String == tag.uid.map { String(format: "%02x", $0) }.joined(), "\(result)")
  }
}
