/// The bit-level side of Type 1 (Topaz) frames as a PN53x's contactless unit (CIU) handles them
/// when its firmware cannot send the command itself: the registers nfcpy programs, CRC_B, and the
/// parity bits a CIU with ParityDisable leaves in its FIFO. Shared by the ACR122U Type 1 link,
/// which programs the unit, and the emulated PN532, which models it.
public enum PN53xCIU {
  /// CIU register addresses (nfcpy `pn53x.py` `Chipset.REG`; PN532 User Manual, CIU at 6301h–633Fh).
  public enum Register {
    public static let command: UInt16 = 0x6331
    public static let fifoData: UInt16 = 0x6339
    public static let fifoLevel: UInt16 = 0x633A
    public static let bitFraming: UInt16 = 0x633D
    public static let manualRCV: UInt16 = 0x630D
    /// CIU_TxMode: bit 7 TxCRCEn (the CIU appends the CRC), bits 6–4 TxSpeed, bits 1–0 TxFraming
    /// (00 ISO/IEC 14443A, 01 active NFCIP-1, 10 FeliCa, 11 ISO/IEC 14443B). PN532 User Manual
    /// §8.6.23 (CIU registers); libnfc `pn53x.c` `pn53x_set_property_bool(NP_HANDLE_CRC)` clears or sets bit 7
    /// (`SYMBOL_TX_CRC_ENABLE` 80h) in both TxMode and RxMode.
    public static let txMode: UInt16 = 0x6302
    /// CIU_RxMode: bit 7 RxCRCEn (the CIU checks and strips the CRC), bits 6–4 RxSpeed, bits 1–0
    /// RxFraming (as TxMode).
    public static let rxMode: UInt16 = 0x6303
  }

  /// The FIFO's size: 64 bytes (nfcpy `pn532.py`, RSEG comment).
  public static let fifoSize = 64

  /// CRC_B (ISO/IEC 14443-3 Annex B: polynomial x¹⁶+x¹²+x⁵+1 reflected (8408h), preset FFFFh,
  /// complemented), least significant byte first, as nfcpy `pn53x.py` `add_crc_b` appends it to
  /// Type 1 frames. `00 00 00` → `CC C6`, `0F AA FF` → `FC D1` (Annex B examples).
  public static func crcB(_ bytes: [UInt8]) -> [UInt8] {
    var register: UInt16 = 0xFFFF
    for byte in bytes {
      for k in 0..<8 {
        let bit = (register ^ UInt16(byte >> UInt8(k) & 1)) & 1
        register >>= 1
        if bit == 1 { register ^= 0x8408 }
      }
    }
    return [UInt8(~register & 0xFF), UInt8(~register >> 8)]
  }

  /// CRC_A (ISO/IEC 14443-3 Annex B: polynomial x¹⁶+x¹²+x⁵+1 reflected (8408h), preset 6363h, not
  /// complemented), least significant byte first. `00 00` → `A0 1E`, `12 34` → `26 CF` (Annex B
  /// examples); Type 2 GET_VERSION `60` → `F8 32`.
  public static func crcA(_ bytes: [UInt8]) -> [UInt8] {
    var register: UInt16 = 0x6363
    for byte in bytes {
      for k in 0..<8 {
        let bit = (register ^ UInt16(byte >> UInt8(k) & 1)) & 1
        register >>= 1
        if bit == 1 { register ^= 0x8408 }
      }
    }
    return [UInt8(register & 0xFF), UInt8(register >> 8)]
  }

  /// The FeliCa CRC (JIS X 6319-4: CRC-16/CCITT, polynomial 1021h, preset 0000h, not reflected),
  /// most significant byte first, over the length byte and the rest of the frame.
  /// UNVERIFIED against a capture: the emulated PN532 only needs it to agree with itself and with a
  /// host that computes the same CRC.
  public static func crcFeliCa(_ bytes: [UInt8]) -> [UInt8] {
    var register: UInt16 = 0x0000
    for byte in bytes {
      register ^= UInt16(byte) << 8
      for _ in 0..<8 { register = register & 0x8000 != 0 ? register << 1 ^ 0x1021 : register << 1 }
    }
    return [UInt8(register >> 8), UInt8(register & 0xFF)]
  }

  /// Bytes as a CIU with ParityDisable receives them: per byte its 8 data bits, least significant
  /// first, then the odd parity bit (ISO/IEC 14443-3 §6.2.3.2), the stream packed least
  /// significant bit first into bytes, the last one padded with zeros.
  public static func withParityBits(_ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: (bytes.count * 9 + 7) / 8)
    var position = 0
    func put(_ bit: Bool) {
      if bit { out[position / 8] |= 1 << UInt8(position % 8) }
      position += 1
    }
    for byte in bytes {
      for k in 0..<8 { put(byte >> UInt8(k) & 1 == 1) }
      put(byte.nonzeroBitCount % 2 == 0)
    }
    return out
  }

  /// The bytes in what a CIU with ParityDisable received: the FIFO bytes form one bit stream, least
  /// significant bit first; every 9 bits are 8 data bits (least significant first) and a parity
  /// bit, which is dropped unchecked (CRC_B covers the bytes). nfcpy `pn532.py`:
  /// `"{:08b}".format(octet)[::-1]` per FIFO byte, then `int(data[i:i+8][::-1], 2)` for i in
  /// `range(0, len(data)-8, 9)`.
  public static func strippingParityBits(_ fifo: [UInt8]) -> [UInt8] {
    let bitCount = fifo.count * 8
    func bit(_ n: Int) -> UInt8 { fifo[n / 8] >> UInt8(n % 8) & 1 }
    return stride(from: 0, to: bitCount - 8, by: 9).map { start in
      (0..<8).reduce(UInt8(0)) { byte, k in byte | bit(start + k) << UInt8(k) }
    }
  }
}
