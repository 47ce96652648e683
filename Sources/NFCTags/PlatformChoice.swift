import NFCTransport

/// A link that can select its target again, for tags that go mute after a command they do not
/// know (a Type 2 tag after GET_VERSION, per nfcpy `tt2.py`).
///
/// Reader drivers conform their tag links when they can re-run anticollision (ACR122U:
/// InListPassiveTarget; emulators: reset the tag). Platforms call it after such a probe failed.
public protocol TargetReselecting: AnyObject {
  /// Selects the same target again (REQA/anticollision/SELECT or the reader's equivalent).
  func reselect() throws(TransceiveError)
}

/// Builds the tag platform for a detected target.
///
/// Each platform has one line in the `switch` below, and its own file beside this one.
/// - Throws: ``TagError/unsupported(_:)`` when the platform is unknown or not implemented yet,
///   naming the card and its ATR.
public func makePlatform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  guard let platform = target.platform else {
    let atr = target.atr.isEmpty ? "no ATR" : "ATR \(hexString(target.atr, separator: " "))"
    throw .unsupported("\(target.cardName.isEmpty ? "this card" : target.cardName) (\(atr)) is not an NFC Forum tag "
                       + "this tool supports")
  }
  switch platform {
  case .type1: return try makeType1Platform(for: target)
  case .type2:
    if let version = target.details.type2Version {
      return Type2Tag(identifier: target.identifier, link: target.link, version: version)
    }
    return Type2Tag(identifier: target.identifier, link: target.link)
  case .type3: return try makeType3Platform(for: target)
  case .type4: return try makeType4Platform(for: target)
  case .type5: return try makeType5Platform(for: target)
  case .mifareClassic:
    guard let chip = MIFAREClassicChip(cardName: target.cardName) else {
      throw .unsupported("\(target.cardName) is not a MIFARE Classic this tool knows")
    }
    return MIFAREClassicTag(chip: chip, identifier: target.identifier, link: target.link)
  }
}
