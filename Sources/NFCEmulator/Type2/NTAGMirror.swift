import NFCTransport

/// The NTAG213/215/216 UID and NFC counter ASCII mirror: what READ and FAST_READ show in place of
/// the stored bytes. The memory itself is not changed. Facts and sources: docs/tag-types.md
/// ("NTAG21x mirror and NFC counter").
///
/// - CFG0 byte 0 (MIRROR): MIRROR_CONF bits 7–6 (00 none, 01 UID, 10 NFC counter, 11 both),
///   MIRROR_BYTE bits 5–4 (the byte in MIRROR_PAGE where the mirror starts), STRG_MOD_EN bit 2.
///   CFG0 byte 2: MIRROR_PAGE; a page below 4 switches the mirror off.
/// - The UID is mirrored as 14 upper-case hex characters, the 24-bit counter as 6 (most
///   significant first); both together are joined by `x` (78h): 21 characters.
/// - The counter part shows only while NFC_CNT_EN is set and, with NFC_CNT_PWD_PROT, after
///   PWD_AUTH; otherwise "both" mirrors the UID alone and "counter" mirrors nothing (Flipper's
///   listener; the data sheet does not say).
/// - A mirror that would not end inside the user memory is not applied.
struct NTAGMirror: Equatable {
  /// CFG1 byte 0 (ACCESS) bit 4: NFC_CNT_EN.
  static let nfcCounterEnable: UInt8 = 0x10
  /// CFG1 byte 0 (ACCESS) bit 3: NFC_CNT_PWD_PROT.
  static let nfcCounterPasswordProtect: UInt8 = 0x08

  /// The first mirrored byte, as an offset in the whole memory.
  let start: Int
  /// The ASCII characters shown from `start` on.
  let text: [UInt8]

  /// The mirror the configuration asks for; nil when none applies.
  /// - Parameters:
  ///   - mirrorByte: CFG0 byte 0.
  ///   - mirrorPage: CFG0 byte 2.
  ///   - counterShown: NFC_CNT_EN set, and readable (not protected, or authenticated).
  ///   - lastUserPage: the last page the mirror may reach.
  init?(mirrorByte: UInt8, mirrorPage: UInt8, uid: [UInt8], counter: Int, counterShown: Bool, lastUserPage: Int) {
    let configuration = mirrorByte >> 6
    let uidText = Array(hexString(uid).uppercased().utf8)
    let counterText = Array(hexString([UInt8((counter >> 16) & 0xFF), UInt8((counter >> 8) & 0xFF), UInt8(counter & 0xFF)]).uppercased().utf8)
    let text: [UInt8]
    switch configuration {
    case 0b01: text = uidText
    case 0b10:
      guard counterShown else { return nil }
      text = counterText
    case 0b11: text = counterShown ? uidText + [0x78] + counterText : uidText
    default: return nil
    }
    guard mirrorPage >= 4 else { return nil }
    let start = Int(mirrorPage) * 4 + Int((mirrorByte >> 4) & 0x03)
    guard start + text.count <= (lastUserPage + 1) * 4 else { return nil }
    self.start = start
    self.text = text
  }

  /// Replaces the mirrored bytes of `page` (its 4 bytes as stored) with the mirror's characters.
  func overlay(_ bytes: inout [UInt8], page: Int) {
    for k in 0..<min(4, bytes.count) {
      let offset = page * 4 + k - start
      if offset >= 0, offset < text.count { bytes[k] = text[offset] }
    }
  }
}
