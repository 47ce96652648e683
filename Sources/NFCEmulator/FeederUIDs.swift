/// The UIDs a tag feeder gives its tags: deterministic from the seed and the tag's position,
/// distinct within a feed, and valid for the kind.
///
/// Per kind, some bytes are fixed (the manufacturer: NXP `04` first for Type 2 and Type 4 tags;
/// FeliCa's manufacturer code `01 2E`; ICODE's `… 08 01 04 E0`, least significant byte first) and
/// the others carry a number. That number is a bijection (multiplications by odd constants and
/// xor-shifts, modulo 2^bits) of `seed part × 2^24 + index`, so two tags of one feed, or of two
/// feeds whose seeds differ below 2^(bits − 24), never share a UID: 2^23 seeds for the 7-byte
/// UIDs (47 bits: UID3 of a double-size UID stays below 80h, so it is never the cascade tag 88h),
/// 2^24 for FeliCa (48 bits), 2^8 for ICODE (32 bits). Larger seeds are hashed into that range.
/// Type 2 check bytes (BCC0, BCC1) are computed by the tag model from the UID.
public enum FeederUIDs {
  /// The UID (IDm for FeliCa) of tag `index` (1-based, below 2^24) of a feed with `seed`.
  public static func uid(for kind: VirtualTagKind, seed: UInt64, index: Int) -> [UInt8] {
    let layout = Layout(kind)
    let seedBits = layout.bits - 24
    let seedPart = seed < (1 << UInt64(seedBits)) ? seed : mix(seed) & ((1 << UInt64(seedBits)) - 1)
    let value = permute((seedPart << 24) | (UInt64(index) & 0xFF_FFFF), bits: layout.bits)
    return layout.uid(carrying: value)
  }

  /// Where the number goes in a kind's UID.
  private struct Layout {
    var fixed: [Int: UInt8]
    var length: Int
    /// The UID byte that holds only 7 bits (nil: every free byte holds 8).
    var sevenBitByte: Int?

    init(_ kind: VirtualTagKind) {
      switch kind {
      case .felicaLiteS:
        self.init(fixed: [0: 0x01, 1: 0x2E], length: 8, sevenBitByte: nil)
      case .icodeSLIX2:
        self.init(fixed: [4: 0x08, 5: 0x01, 6: 0x04, 7: 0xE0], length: 8, sevenBitByte: nil)
      case .topaz96, .topaz512:
        self.init(fixed: [6: 0x00], length: 7, sevenBitByte: 3)
      default:
        self.init(fixed: [0: 0x04], length: 7, sevenBitByte: 3)
      }
    }

    private init(fixed: [Int: UInt8], length: Int, sevenBitByte: Int?) {
      self.fixed = fixed
      self.length = length
      self.sevenBitByte = sevenBitByte
    }

    var bits: Int { (length - fixed.count) * 8 - (sevenBitByte == nil ? 0 : 1) }

    func uid(carrying value: UInt64) -> [UInt8] {
      var rest = value
      var out = [UInt8](repeating: 0, count: length)
      if let seven = sevenBitByte {
        out[seven] = UInt8(truncatingIfNeeded: rest >> UInt64(bits - 7)) & 0x7F
      }
      for position in (0..<length).reversed() {
        if let byte = fixed[position] {
          out[position] = byte
        } else if position != sevenBitByte {
          out[position] = UInt8(truncatingIfNeeded: rest)
          rest >>= 8
        }
      }
      return out
    }
  }

  /// A bijection of the `bits`-bit numbers.
  static func permute(_ x: UInt64, bits: Int) -> UInt64 {
    let mask: UInt64 = (1 << UInt64(bits)) - 1
    let shift = UInt64(bits / 2)
    var v = x & mask
    for multiplier: UInt64 in [0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB] {
      v = (v &* multiplier) & mask   // odd: invertible modulo 2^bits
      v ^= v >> shift                // invertible for any shift > 0
    }
    return v
  }

  /// SplitMix64's finaliser, for seeds beyond the guaranteed range.
  private static func mix(_ seed: UInt64) -> UInt64 {
    var z = seed &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
