import NFCEmulator
import NTAG424

/// What an unauthenticated read of an SDM-enabled file returns: the file's bytes with the mirrors
/// filled in (NT4H2421Gx datasheet §9.3).
///
/// In ASCII encoding (the only one, SDMOptions bit 0): the UID as 14 hex digits and SDMReadCtr as
/// 6, most significant first, when SDMMetaRead is Eh; encrypted PICCData as 32 hex digits when
/// SDMMetaRead names a key (§9.3.4); with SDMFileRead a key, SDMENCFileData (the file's
/// SDMENCLength / 2 plain bytes at SDMENCOffset, encrypted, as SDMENCLength hex digits, §9.3.6)
/// and last the SDMMAC over the mirrored bytes from SDMMACInputOffset to SDMMACOffset (16 hex
/// digits, §9.3.8). Hex digits are upper case. The file itself is never changed.
enum NTAG424Mirror {
  /// The mirrored contents.
  ///
  /// - Parameters:
  ///   - contents: the file as stored.
  ///   - sdm: its SDM settings.
  ///   - uid: the tag's UID.
  ///   - counter: SDMReadCtr after this read's increment.
  ///   - keys: the five application keys' bytes.
  ///   - padding: PICCData's RandomPadding (5 bytes or more).
  /// - Throws: NTAG424Error when swift-crypto refuses an operation (a broken invariant).
  static func apply(to contents: [UInt8], sdm: SDMSettings, uid: [UInt8], counter: UInt32,
                    keys: [[UInt8]], padding: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    var out = contents
    func put(_ text: [UInt8], at offset: Int?) {
      guard let offset, offset >= 0, offset + text.count <= out.count else { return }
      out.replaceSubrange(offset..<(offset + text.count), with: text)
    }
    func key(_ number: UInt8) throws(NTAG424Error) -> AESKey {
      guard Int(number) < keys.count else { throw .invalidKeyNumber(number) }
      return try AESKey(bytes: keys[Int(number)])
    }
    let mirroredUID = sdm.mirrorsUID ? uid : nil
    let mirroredCounter = sdm.mirrorsCounter ? counter : nil
    if sdm.metaRead == 0xE {
      if let mirroredUID { put(hexDigits(mirroredUID), at: sdm.uidOffset) }
      if let mirroredCounter { put(hexDigits(bigEndian3(mirroredCounter)), at: sdm.readCounterOffset) }
    } else if sdm.metaRead <= 4 {
      let picc = try SDMGeneration.encryptPICCData(uid: mirroredUID, readCounter: mirroredCounter,
                                                   metaReadKey: try key(sdm.metaRead), padding: padding)
      put(hexDigits(picc), at: sdm.piccDataOffset)
    }
    guard sdm.fileRead <= 4, let macInputOffset = sdm.macInputOffset, let macOffset = sdm.macOffset else { return out }
    let sessionKeys = try SDMSessionKeys(fileReadKey: try key(sdm.fileRead), uid: mirroredUID, readCounter: mirroredCounter)
    if sdm.encryptsFileData, let encOffset = sdm.encOffset, let encLength = sdm.encLength,
       encOffset >= 0, encOffset + encLength / 2 <= contents.count {
      let plain = Array(contents[encOffset..<(encOffset + encLength / 2)])
      put(hexDigits(try SDMGeneration.encryptFileData(plain, readCounter: counter, sessionKeys: sessionKeys)), at: encOffset)
    }
    guard macInputOffset >= 0, macInputOffset <= macOffset, macOffset <= out.count else { return out }
    let mac = try SecureDynamicMessaging.mac(over: Array(out[macInputOffset..<macOffset]), sessionKeys: sessionKeys)
    put(hexDigits(mac), at: macOffset)
    return out
  }

  /// Upper-case hex digits as ASCII bytes.
  static func hexDigits(_ bytes: [UInt8]) -> [UInt8] {
    let digits = Array("0123456789ABCDEF".utf8)
    return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
  }

  private static func bigEndian3(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }
}
