/// The checksums of DESFire's enciphered frames (not cryptography: error detection inside the
/// ciphertext).
public enum DESFireCRC {
  /// EV1's CRC32 (NXP MF3ICDx21_41_81 data sheet §2.5: "a 32-bit CRC" in enciphered
  /// communication): the IEEE 802.3 polynomial, reflected (EDB88320h), preset FFFFFFFFh, no final
  /// inversion, least significant byte first, as real cards check it (the enciphered exchanges of
  /// DESFireTests).
  public static func crc32(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
  }

  /// The legacy (D40) scheme's CRC16: ISO/IEC 14443-3's CRC_A (preset 6363h, reflected polynomial
  /// 8408h), least significant byte first.
  public static func crc16(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var crc: UInt16 = 0x6363
    for byte in bytes {
      crc ^= UInt16(byte)
      for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
    }
    return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
  }
}
