import NFCTags
import Testing

/// The host names a MIFARE DESFire Light from GetVersion: hardware type 08h, version 30h.00h, as
/// Proxmark3's `hf mfdes info` classifies one (client/src/cmdhfmfdes.c; docs/desfire.md, "DESFire
/// Light"); an NTAG 424 DNA, type 04h with the same major 30h, stays another chip.
@Suite struct DESFireLightVersionTests {
  static func version(_ hardware: [UInt8]) throws -> DESFireVersionInfo {
    try DESFireVersionInfo(parsing: hardware + hardware + [0x04, 0x3A, 0x61, 0x2C, 0x5E, 0x73, 0x80, 0xBA, 0, 0, 0, 0, 0x20, 0x13])
  }

  @Test func typeEightIsTheLight() throws {
    let light = try Self.version([0x04, 0x08, 0x01, 0x30, 0x00, 0x13, 0x05])
    #expect(light.isDESFire)
    #expect(light.productName == "MIFARE DESFire Light")
    let ntag = try Self.version([0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05])
    #expect(!ntag.isDESFire)
    #expect(ntag.productName.hasPrefix("NXP chip of type 04h"))
  }
}
