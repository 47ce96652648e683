import NFCEmulator
import NTAG424

/// What an unauthenticated read of an SDM-enabled file returns: the file's bytes with the mirrors
/// filled in (NT4H2421Gx datasheet §9.3). The mirror logic is EV2SecureMessaging's ``SDMMirror``,
/// which the virtual DESFire EV3 shares (through NTAG424's ``SDMGeneration/mirror(_:layout:uid:counter:keys:padding:)``,
/// over swift-crypto); this gives it the 424 DNA's SDM settings. The file itself is never changed.
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
    try SDMGeneration.mirror(contents, layout: sdm.mirrorLayout, uid: uid, counter: counter, keys: keys, padding: padding)
  }
}

extension SDMSettings {
  /// The mirror's view of these settings.
  var mirrorLayout: SDMMirrorLayout {
    SDMMirrorLayout(mirrorsUID: mirrorsUID, mirrorsCounter: mirrorsCounter, metaRead: metaRead, fileRead: fileRead,
                    uidOffset: uidOffset, readCounterOffset: readCounterOffset, piccDataOffset: piccDataOffset,
                    macInputOffset: macInputOffset, macOffset: macOffset,
                    encOffset: encryptsFileData ? encOffset : nil, encLength: encryptsFileData ? encLength : nil)
  }
}
