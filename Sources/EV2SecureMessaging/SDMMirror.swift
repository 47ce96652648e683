/// Where a file's SDM mirrors go and with which keys: what the card reads of its SDM settings
/// (NT4H2421Gx datasheet §10.7.1, Table 69) to fill a read, without the settings' own types (the
/// NTAG 424 DNA's virtual tag and the virtual DESFire EV3 each keep theirs and give this).
public struct SDMMirrorLayout: Hashable, Sendable {
  /// SDMOptions bit 7: the UID is mirrored.
  public var mirrorsUID: Bool
  /// SDMOptions bit 6: SDMReadCtr is mirrored.
  public var mirrorsCounter: Bool
  /// SDMMetaRead: 0–4 encrypted PICCData under that key, Eh plain mirrors, Fh none.
  public var metaRead: UInt8
  /// SDMFileRead: 0–4 the key of the SDMMAC and SDMENCFileData, Fh none.
  public var fileRead: UInt8
  /// UIDOffset, SDMReadCtrOffset, PICCDataOffset, SDMMACInputOffset, SDMMACOffset.
  public var uidOffset: Int?, readCounterOffset: Int?, piccDataOffset: Int?, macInputOffset: Int?, macOffset: Int?
  /// SDMENCOffset and SDMENCLength (hex digits), when SDMOptions bit 4 asks for SDMENCFileData.
  public var encOffset: Int?, encLength: Int?

  /// A layout from every field.
  public init(mirrorsUID: Bool, mirrorsCounter: Bool, metaRead: UInt8, fileRead: UInt8, uidOffset: Int? = nil,
              readCounterOffset: Int? = nil, piccDataOffset: Int? = nil, macInputOffset: Int? = nil,
              macOffset: Int? = nil, encOffset: Int? = nil, encLength: Int? = nil) {
    self.mirrorsUID = mirrorsUID
    self.mirrorsCounter = mirrorsCounter
    self.metaRead = metaRead
    self.fileRead = fileRead
    self.uidOffset = uidOffset
    self.readCounterOffset = readCounterOffset
    self.piccDataOffset = piccDataOffset
    self.macInputOffset = macInputOffset
    self.macOffset = macOffset
    self.encOffset = encOffset
    self.encLength = encLength
  }
}

/// What an unauthenticated read of an SDM-enabled file returns: the file's bytes with the mirrors
/// filled in (NT4H2421Gx datasheet §9.3), the card's side for the NTAG 424 DNA and the DESFire EV3,
/// generic over the cipher (``SDMCrypto``).
///
/// In ASCII encoding (the only one, SDMOptions bit 0): the UID as 14 hex digits and SDMReadCtr as
/// 6, most significant first, when SDMMetaRead is Eh; encrypted PICCData as 32 hex digits when
/// SDMMetaRead names a key (§9.3.4); with SDMFileRead a key, SDMENCFileData (the file's
/// SDMENCLength / 2 plain bytes at SDMENCOffset, encrypted, as SDMENCLength hex digits, §9.3.6)
/// and last the SDMMAC over the mirrored bytes from SDMMACInputOffset to SDMMACOffset (16 hex
/// digits, §9.3.8). Hex digits are upper case. A mirror that would not fit the file is left out;
/// the file itself is never changed.
public enum SDMMirror<C: EV2Cipher> {
  /// The mirrored contents.
  ///
  /// - Parameters:
  ///   - contents: the file as stored.
  ///   - layout: its SDM settings.
  ///   - uid: the card's 7-byte UID.
  ///   - counter: SDMReadCtr after this read's increment.
  ///   - keys: the application's keys' bytes, by number.
  ///   - padding: PICCData's RandomPadding (5 bytes or more).
  /// - Throws: ``EV2Error/invalidKeyNumber(_:)`` for a key the application does not have;
  ///   ``EV2Error`` when the cipher refuses an operation (a broken invariant).
  @inlinable
  public static func apply(to contents: [UInt8], layout: SDMMirrorLayout, uid: [UInt8], counter: UInt32,
                           keys: [[UInt8]], padding: [UInt8]) throws(EV2Error) -> [UInt8] {
    var out = contents
    func put(_ text: [UInt8], at offset: Int?) {
      guard let offset, offset >= 0, offset <= out.count, text.count <= out.count - offset else { return }
      out.replaceSubrange(offset..<(offset + text.count), with: text)
    }
    func key(_ number: UInt8) throws(EV2Error) -> [UInt8] {
      guard Int(number) < keys.count else { throw .invalidKeyNumber(number) }
      return keys[Int(number)]
    }
    let mirroredUID = layout.mirrorsUID ? uid : nil
    let mirroredCounter = layout.mirrorsCounter ? counter : nil
    if layout.metaRead == 0xE {
      if let mirroredUID { put(SDMFrames.hexDigits(mirroredUID), at: layout.uidOffset) }
      if let mirroredCounter {
        put(SDMFrames.hexDigits([UInt8(truncatingIfNeeded: mirroredCounter >> 16), UInt8(truncatingIfNeeded: mirroredCounter >> 8),
                       UInt8(truncatingIfNeeded: mirroredCounter)]), at: layout.readCounterOffset)
      }
    } else if layout.metaRead <= 4 {
      let picc = try SDMCrypto<C>.encryptPICCData(uid: mirroredUID, readCounter: mirroredCounter,
                                                  metaReadKey: try key(layout.metaRead), padding: padding)
      put(SDMFrames.hexDigits(picc), at: layout.piccDataOffset)
    }
    guard layout.fileRead <= 4, let macInputOffset = layout.macInputOffset, let macOffset = layout.macOffset else { return out }
    let sessionKeys = try SDMCrypto<C>.sessionKeys(fileReadKey: try key(layout.fileRead), uid: mirroredUID,
                                                   readCounter: mirroredCounter)
    if let encOffset = layout.encOffset, let encLength = layout.encLength,
       encOffset >= 0, encLength >= 0, encOffset <= contents.count, encLength / 2 <= contents.count - encOffset {
      let plain = Array(contents[encOffset..<(encOffset + encLength / 2)])
      put(SDMFrames.hexDigits(try SDMCrypto<C>.encryptFileData(plain, readCounter: counter, sessionKeys: sessionKeys)), at: encOffset)
    }
    guard macInputOffset >= 0, macInputOffset <= macOffset, macOffset <= out.count else { return out }
    let mac = try SDMCrypto<C>.mac(over: Array(out[macInputOffset..<macOffset]), sessionKeys: sessionKeys)
    put(SDMFrames.hexDigits(mac), at: macOffset)
    return out
  }
}
