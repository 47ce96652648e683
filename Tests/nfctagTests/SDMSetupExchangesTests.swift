import DESFireEmulator
import Foundation
import Testing
@testable import NFCTagCLI
@testable import nfctag_provision

/// `sdm setup`'s exchanges with the tag (its `--format json` `exchanges`: APDUs to the tag, the
/// reader's own commands not counted) on a factory MIFARE DESFire EV3 formatted with AES keys, in
/// process, with the URL `make bench` uses (scripts/bench.sh); docs/performance.md ("DESFire
/// provisioning") gives the figure beside the 424 DNA's 10 (SDMSetupCLITests).
@Suite final class SDMSetupExchanges {
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-sdm-exchanges-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// 16: GetVersion (3: the chip), SelectApplication 000001, GetKeySettings (AES keys),
  /// GetFileSettings (the file's size), AuthenticateEV2First (2), ChangeFileSettings, WriteData of
  /// NLEN 0000, of the 72-byte message (2 frames) and of NLEN, SelectApplication and ReadData
  /// (2 answer frames).
  @Test func anEV3TakesSixteen() throws {
    let reader = "sim:desfire-ev3-4k:" + directory.appendingPathComponent("ev3.bin").path
    let format = try runTool(["format", "--key-type", "aes", "--reader", reader, "--quiet"])
    #expect(format.status == 0, "\(format.stderr)")
    let setup = try runTool(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", reader,
                             "--format", "json", "--quiet"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let result = try jsonObject(setup.stdout)
    #expect(result["verified"] as? Bool == true, "\(setup.stdout)")
    #expect(result["exchanges"] as? Int == 16, "\(setup.stdout)")
  }
}
