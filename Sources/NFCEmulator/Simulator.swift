import NFCTransport

/// The virtual tag kinds, by the names the command line uses. One table, so new models add a row;
/// each model's factory lives beside it (Type1/, Type2/, …), or, for a model in another module
/// (``externalModel``: the NTAG 424 DNA, in NTAG424Emulator), is the one that module registers in
/// ``VirtualTagFactories``. Every name parses in every program; a kind whose factory is not
/// registered throws ``EmulatorError/Reason/kindNotLinked(_:)`` when a tag of it is made.
public enum VirtualTagKind: String, CaseIterable, Sendable {
  case topaz96, topaz512
  case ntag210, ntag213, ntag215, ntag216, ultralight
  case ultralightEV1 = "ultralight-ev1"
  /// An NTAG213 locked read-only as `nfctag lock` leaves one (CC write access 0F, every lock bit
  /// set), with an empty NDEF message: writes are refused as on a real locked tag.
  case ntag213Locked = "ntag213-locked"
  case felicaLiteS = "felica-lite-s"
  case type4
  /// An NXP NTAG 424 DNA: the Type 4 tag with AES keys, secure messaging and SUN. Its model,
  /// `NTAG424DNAVirtualTag`, is in the NTAG424Emulator module (AES over swift-crypto): built only
  /// once that module's `register()` has run (``VirtualTagFactories``).
  case ntag424dna
  case icodeSLIX2 = "icode-slix2"
  /// NXP MIFARE Classic 1K, 4K and Mini (`Classic/`): factory keys FF…FF, access bits `FF 07 80`.
  case mifareClassic1K = "mifare-classic-1k"
  case mifareClassic4K = "mifare-classic-4k"
  case mifareClassicMini = "mifare-classic-mini"
  /// A MIFARE Classic 1K, 4K or Mini formatted for NDEF as NXP AN1304 defines it: the MAD with the
  /// public key A0A1A2A3A4A5, every other sector an NDEF sector with key A D3F7D3F7D3F7 holding an
  /// empty message; key B stays FF…FF.
  case mifareClassic1KNDEF = "mifare-classic-1k-ndef"
  case mifareClassic4KNDEF = "mifare-classic-4k-ndef"
  case mifareClassicMiniNDEF = "mifare-classic-mini-ndef"
  /// An NXP MIFARE DESFire EV1 2K, 4K or 8K as shipped (`DESFire/`): PICC master key DES 00…00,
  /// no applications. It authenticates once DESFireEmulator's `register()` has installed its
  /// cryptography (docs/desfire.md).
  case desfireEV1With2K = "desfire-ev1-2k"
  case desfireEV1With4K = "desfire-ev1-4k"
  case desfireEV1With8K = "desfire-ev1-8k"
  /// An NXP MIFARE DESFire EV2 2K, 4K or 8K as shipped: an EV1 with the EV2's GetVersion and its
  /// random-FCI fault (``DESFireChip/answersRandomFCIForMissingNDEFApplication``); EV2 commands
  /// and secure messaging are not modelled (docs/desfire.md).
  case desfireEV2With2K = "desfire-ev2-2k"
  case desfireEV2With4K = "desfire-ev2-4k"
  case desfireEV2With8K = "desfire-ev2-8k"
  /// An NXP MIFARE DESFire EV3 2K, 4K or 8K as shipped: an EV1 with the EV3's GetVersion.
  case desfireEV3With2K = "desfire-ev3-2k"
  case desfireEV3With4K = "desfire-ev3-4k"
  case desfireEV3With8K = "desfire-ev3-8k"
  /// An NXP MIFARE DESFire Light (MF2DL(H)x0) as shipped: its fixed files in one application,
  /// ISO and wrapped APDUs only, EV2 authentication with five AES keys 00…00 (docs/desfire.md,
  /// "DESFire Light").
  case desfireLight = "desfire-light"

  /// A tag with factory content.
  /// - Throws: ``EmulatorError``: a UID the model refuses, or
  ///   ``EmulatorError/Reason/kindNotLinked(_:)`` for a kind whose factory is not registered.
  public func makeTag(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
    switch self {
    case .topaz96: return try Type1VirtualTag(chip: .topaz96, uid: uid)
    case .topaz512: return try Type1VirtualTag(chip: .topaz512, uid: uid)
    case .ntag210: return try Type2VirtualTag(chip: .ntag210, uid: uid)
    case .ntag213: return try Type2VirtualTag(chip: .ntag213, uid: uid)
    case .ntag213Locked:
      let tag = try Type2VirtualTag(chip: .ntag213, uid: uid)
      tag.lockReadOnly()
      return tag
    case .ntag215: return try Type2VirtualTag(chip: .ntag215, uid: uid)
    case .ntag216: return try Type2VirtualTag(chip: .ntag216, uid: uid)
    case .ultralight: return try Type2VirtualTag(chip: .ultralight, uid: uid)
    case .ultralightEV1: return try Type2VirtualTag(chip: .ultralightEV1, uid: uid)
    case .felicaLiteS: return try makeFeliCaLiteS(uid: uid)
    case .type4: return try makeType4Tag(uid: uid)
    case .ntag424dna: return try VirtualTagFactories.shared.makeTag(self, uid: uid)
    case .icodeSLIX2: return try makeICODESLIX2(uid: uid)
    case .mifareClassic1K: return try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    case .mifareClassic4K: return try MIFAREClassicVirtualTag(chip: .classic4K, uid: uid)
    case .mifareClassicMini: return try MIFAREClassicVirtualTag(chip: .mini, uid: uid)
    case .mifareClassic1KNDEF: return try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    case .mifareClassic4KNDEF: return try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic4K, uid: uid)
    case .mifareClassicMiniNDEF: return try MIFAREClassicVirtualTag.ndefFormatted(chip: .mini, uid: uid)
    case .desfireEV1With2K, .desfireEV1With4K, .desfireEV1With8K, .desfireEV2With2K, .desfireEV2With4K, .desfireEV2With8K,
         .desfireEV3With2K, .desfireEV3With4K, .desfireEV3With8K:
      return try DESFireVirtualTag(chip: desfireChip ?? .ev1With4K, uid: uid)
    case .desfireLight: return try DESFireVirtualTag.light(uid: uid)
    }
  }

  /// A tag from a memory image (the raw memory in address order). `uid` names the tag when the
  /// image does not hold its UID (Type 4 files, Type 5 blocks); Types 1–3 keep theirs in memory,
  /// so the image's wins there. A MIFARE Classic's image is the `.mfd` layout (every block,
  /// trailers with their keys) and holds its UID in block 0; `uid` only tells a 7-byte UID's length.
  /// - Throws: ``EmulatorError``: an image or UID the model refuses, or
  ///   ``EmulatorError/Reason/kindNotLinked(_:)`` for a kind whose factory is not registered.
  public func makeTag(image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) -> any VirtualTag {
    switch self {
    case .topaz96: return try Type1VirtualTag(chip: .topaz96, image: image)
    case .topaz512: return try Type1VirtualTag(chip: .topaz512, image: image)
    case .ntag210: return try Type2VirtualTag(chip: .ntag210, image: image)
    case .ntag213, .ntag213Locked: return try Type2VirtualTag(chip: .ntag213, image: image)
    case .ntag215: return try Type2VirtualTag(chip: .ntag215, image: image)
    case .ntag216: return try Type2VirtualTag(chip: .ntag216, image: image)
    case .ultralight: return try Type2VirtualTag(chip: .ultralight, image: image)
    case .ultralightEV1: return try Type2VirtualTag(chip: .ultralightEV1, image: image)
    case .felicaLiteS: return try makeFeliCaLiteS(image: image, uid: uid)
    case .type4: return try Type4VirtualTag(image: image, uid: uid)
    case .ntag424dna: return try VirtualTagFactories.shared.makeTag(self, image: image, uid: uid)
    case .icodeSLIX2: return try ICODESLIX2VirtualTag(image: image, uid: uid)
    case .mifareClassic1K, .mifareClassic1KNDEF: return try MIFAREClassicVirtualTag(chip: .classic1K, image: image, uid: uid)
    case .mifareClassic4K, .mifareClassic4KNDEF: return try MIFAREClassicVirtualTag(chip: .classic4K, image: image, uid: uid)
    case .mifareClassicMini, .mifareClassicMiniNDEF: return try MIFAREClassicVirtualTag(chip: .mini, image: image, uid: uid)
    case .desfireEV1With2K, .desfireEV1With4K, .desfireEV1With8K, .desfireEV2With2K, .desfireEV2With4K, .desfireEV2With8K,
         .desfireEV3With2K, .desfireEV3With4K, .desfireEV3With8K, .desfireLight:
      return try DESFireImage.decode(image, chip: desfireChip ?? .ev1With4K, uid: uid)
    }
  }

  /// The DESFire chip of a `desfire-…` kind; nil for the others.
  public var desfireChip: DESFireChip? {
    switch self {
    case .desfireEV1With2K: return .ev1With2K
    case .desfireEV1With4K: return .ev1With4K
    case .desfireEV1With8K: return .ev1With8K
    case .desfireEV2With2K: return .ev2With2K
    case .desfireEV2With4K: return .ev2With4K
    case .desfireEV2With8K: return .ev2With8K
    case .desfireEV3With2K: return .ev3With2K
    case .desfireEV3With4K: return .ev3With4K
    case .desfireEV3With8K: return .ev3With8K
    case .desfireLight: return .light
    default: return nil
    }
  }

  /// The reader face a tag of this kind is shown in when none is named: the ACR122U, except for
  /// ISO 15693 tags, which it cannot read.
  public var defaultFace: ReaderFaceKind { self == .icodeSLIX2 ? .acr1552u : .acr122u }

  /// "ntag213|ntag215|…" for help texts.
  public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// The reader faces the emulator can show a virtual tag in, one per `ReaderModel`: the ACR122U
/// (a PN532 behind pseudo-APDUs, ``ACR122UFace``) and PC/SC Part 3 readers, each a
/// ``PartThreeFace`` with its ``ReaderProfile``. `part3`, the name of the generic Part 3 face before
/// the real readers came, still parses and means `acr1552u` (`ReaderModel.part3`).
public typealias ReaderFaceKind = ReaderModel

extension ReaderModel {
  /// The generic PC/SC Part 3 face of earlier versions: the ACR1552U it was shaped after. `part3`
  /// on the command line (`sim:ntag215@part3`, `emulate --reader part3`) parses to it.
  public static let part3 = ReaderModel.acr1552u

  /// The reader model of a Part 3 face; nil for the ACR122U.
  public var profile: ReaderProfile? {
    switch self {
    case .acr122u: return nil
    case .acr1252u: return .acr1252u
    case .acr1552u: return .acr1552u
    case .utrust3700f: return .utrust3700f
    case .omnikey5022: return .omnikey5022
    case .omnikey5422: return .omnikey5422
    case .scl3711: return .scl3711
    }
  }

  /// The face with `tag` in its field.
  /// - Throws: ``EmulatorError`` when this reader cannot talk to that kind of tag, naming a face
  ///   that can (``EmulatorError/workingFace``).
  public func makeFace(tag: any VirtualTag) throws(EmulatorError) -> any VirtualCard {
    guard let profile else {
      guard tag.platform != .type5 else {
        throw EmulatorError("the ACR122U cannot read ISO 15693 (Type 5) tags", workingFace: .acr1552u)
      }
      return ACR122UFace(tag: tag)
    }
    return try PartThreeFace(tag: tag, profile: profile)
  }

  /// The PC/SC name the in-process simulator gives this reader: the name pcsc-lite shows on Linux
  /// without its ` NN SS` suffix (``ReaderProfile/readerName``).
  public var simulatedReaderName: String {
    profile?.readerName ?? "ACS ACR122U PICC Interface"
  }

  /// "acr122u|acr1252u|…" for help texts (`part3` is accepted too, as acr1552u).
  public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// A reader slot in process: a ``VirtualCard`` plus removal and latency for fault injection.
/// The simulator's `APDUTransport`: only this layer differs from a PC/SC card handle.
public final class SimulatedAPDUTransport: APDUTransport {
  /// The reader name the slot shows (an ACR122U's by default).
  public let readerName: String
  /// The reader face with its tag.
  public let card: any VirtualCard
  /// The tag leaves after answering this many APDUs; nil: it stays.
  public let removeAfter: Int?
  /// The reader time each exchange is modelled to take (``LatencyModel/none``: no wait).
  public let latency: LatencyModel
  /// APDUs answered so far.
  public private(set) var answered = 0
  /// True once the tag left (after ``removeAfter`` answers).
  public private(set) var isRemoved = false
  /// The reader time ``latency`` modelled for the exchanges so far, in microseconds.
  public private(set) var modelledMicroseconds = 0
  private let afterCommand: (() -> Void)?

  /// - Parameters:
  ///   - readerName: the reader name the slot shows.
  ///   - card: the reader face with its tag.
  ///   - removeAfter: the tag leaves after answering this many APDUs.
  ///   - latency: the reader time to model for each exchange.
  ///   - afterCommand: runs after every APDU (image persistence).
  public init(readerName: String = "ACS ACR122U PICC Interface 00 00", card: any VirtualCard,
              removeAfter: Int? = nil, latency: LatencyModel = .none, afterCommand: (() -> Void)? = nil) {
    self.readerName = readerName
    self.card = card
    self.removeAfter = removeAfter
    self.latency = latency
    self.afterCommand = afterCommand
  }

  /// The face's ATR.
  public var atr: [UInt8] { card.atr }

  /// Sends one APDU to the face, after the modelled latency.
  /// - Throws: `TransceiveError.tagRemoved` once the tag left.
  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !isRemoved else { throw .tagRemoved }
    let reply = card.transmit(apdu)
    let wait = latency.microseconds(command: apdu, response: reply)
    modelledMicroseconds += wait
    if wait > 0 { LibC.sleep(microseconds: wait) }
    answered += 1
    afterCommand?()
    if let removeAfter, answered >= removeAfter { isRemoved = true }
    return reply
  }

  /// The reader activates the tag again: the face's warm reset (what `SCardReconnect` with
  /// `SCARD_RESET_CARD` reaches through vpcd).
  /// - Throws: `TransceiveError.tagRemoved` once the tag left.
  public func reactivateCard() throws(TransceiveError) {
    guard !isRemoved else { throw .tagRemoved }
    card.reset()
  }
}
