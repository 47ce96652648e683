/// The PC/SC reader models nfctag knows, one name for each: NFCReaders identifies a reader as
/// one of them by what it answers and knows what each can do (`capabilities`), and NFCEmulator
/// shows a virtual tag in a face of each (`ReaderFaceKind` is this type there). What each reader
/// does, with its sources: docs/readers.md.
public enum ReaderModel: String, CaseIterable, Sendable {
  /// ACS ACR122U: a PN532 behind pseudo-APDUs; Types 1–4 and MIFARE Classic, no ISO 15693.
  case acr122u
  /// ACS ACR1252U: a PN512 reader with PC/SC Part 3, direct transmit for FeliCa and ACS escapes.
  case acr1252u
  /// ACS ACR1552U: ACS's ISO 15693 reader (transparent exchange, `FF C2`).
  case acr1552u
  /// Identiv uTrust 3700 F (sold before as CLOUD 3700 F): READ BINARY answers whole blocks.
  case utrust3700f
  /// HID OMNIKEY 5022 CL: READ BINARY answers 16 bytes on a Type 2 tag.
  case omnikey5022
  /// HID OMNIKEY 5422 (its contactless interface).
  case omnikey5422
  /// SCM / Identiv SCL3711: a PN533; on Linux a PC/SC reader only with Identiv's own driver.
  case scl3711

  /// The model named `rawValue`; `part3`, the emulator's generic PC/SC Part 3 face before the real
  /// readers came, still names the ACR1552U it was shaped after. Nil for other names.
  public init?(rawValue: String) {
    if rawValue == "part3" {
      self = .acr1552u
      return
    }
    guard let model = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
    self = model
  }

  /// The product, for messages ("ACS ACR1252U").
  public var productName: String {
    switch self {
    case .acr122u: return "ACS ACR122U"
    case .acr1252u: return "ACS ACR1252U"
    case .acr1552u: return "ACS ACR1552U"
    case .utrust3700f: return "Identiv uTrust 3700 F"
    case .omnikey5022: return "HID OMNIKEY 5022"
    case .omnikey5422: return "HID OMNIKEY 5422"
    case .scl3711: return "SCM SCL3711"
    }
  }
}
