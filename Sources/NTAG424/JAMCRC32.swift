/// The CRC32 of ChangeKey's key data: CRC-32 (reflected polynomial EDB88320h, initial value
/// FFFFFFFFh) without the final inversion, the variant known as JAMCRC.
///
/// NT4H2421Gx datasheet §10.6.1, Table 63 ("CRC32NK", the IEEE 802.3 polynomial over NewKey);
/// NXP AN12196 rev 2.0 §5.16's ChangeKey transcript shows the value sent is not complemented at
/// the end. Not cryptography: a table-driven checksum.
public enum JAMCRC32 {
  /// The checksum of `bytes`.
  public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
    return crc
  }

  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    return value
  }
}
