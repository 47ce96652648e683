import Foundation
import Testing

/// Independent clients against `nfctag emulate` through the real pcscd and vpcd.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct PN53xClientEndToEnd {
  /// scripts/pn53x-check.py speaks only PN532 frames through `FF 00 00 00` (pyscard, as libnfc's
  /// acr122_pcsc driver does): GetFirmwareVersion (PN532 UM §7.2.2), InListPassiveTarget (§7.3.5),
  /// CRC off through WriteRegister (§7.2.5, CIU_TxMode/RxMode §8.6.23), GET_VERSION and READ with
  /// CRC_A through InCommunicateThru (§7.3.9), InAutoPoll (§7.3.13), and an unknown command (the
  /// syntax error frame, §6.2.1.5, as 63 7F).
  @Test func aPN53xClientIdentifiesAnNTAG215AndReadsItsPages() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let r = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/pn53x-check.py").path, e2eReader])
    #expect(r.status == 0, "\(r.stderr)")
    let image = try Data(contentsOf: emulator.image)
    let lines = Set(r.stdout.split(separator: "\n").map(String.init))
    #expect(lines.contains("firmware PN532 v1.6"))
    #expect(lines.contains("product NTAG215"), "\(r.stdout)")
    #expect(lines.contains("version 0004040201001103"))
    #expect(lines.contains("pages " + hexString(image.prefix(64))), "\(r.stdout)")
    #expect(lines.contains("uid 04a1b2c3d4e580"))
    #expect(lines.contains("autopoll type 10 uid 04a1b2c3d4e580"))
    #expect(lines.contains("unknown-command 637f"))
  }

  /// vpcd serves one card per slot: a second `emulate` on the same port says so and exits 69
  /// (EX_UNAVAILABLE), and the first one's tag stays in the reader.
  @Test func aSecondEmulatorOnABusySlotExits69() throws {
    let emulator = try Emulator(tag: "ntag215")
    defer { emulator.stop() }
    let second = try runNFCTag(["emulate", "--tag", "topaz512", "--vpcd", e2ePort], timeout: 30)
    #expect(second.status == 69)
    #expect(second.stderr.contains("already serves another"), "\(second.stderr)")
    #expect(!second.stderr.contains("emulating"))
    let r = try runProgram("/usr/bin/python3", [packageRoot.appendingPathComponent("scripts/pcsc-check.py").path, e2eReader])
    #expect(r.stdout.contains("uid 04a1b2c3d4e580"), "\(r.stdout) \(r.stderr)")
  }
}

private func hexString(_ bytes: some Sequence<UInt8>) -> String {
  bytes.map { String(format: "%02x", $0) }.joined()
}
