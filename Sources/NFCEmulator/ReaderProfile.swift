import NFCTransport

/// What one PC/SC reader model does, as ``PartThreeFace`` shows it: the name pcsc-lite gives it,
/// the tag families it reads, how it answers READ/UPDATE BINARY per family, which exchange paths
/// it has, how it takes MIFARE Classic keys, what it answers to what it does not support, its
/// ATRs and its `SCardControl` escapes. One value per reader (``ReaderProfile/acr1252u`` and the
/// others, `ReaderProfiles.swift`, each fact with its source); docs/readers.md ("Reader faces:
/// choices where nothing public says") lists what no public source says and what was chosen.
public struct ReaderProfile: Sendable, Equatable {
  /// How READ BINARY (`FF B0`) on a Type 2 tag answers.
  public enum Type2Read: Sendable, Equatable {
    /// The bytes asked for: Le ≤ 16, a multiple of `multiple` (00 = 16), else `63 00`-style failure.
    case asked(multiple: Int)
    /// One 4-byte page whatever Le says (the reader's "block" of an Ultralight).
    case page
    /// The 16 bytes of the tag's READ (four pages) whatever Le says.
    case fourPages
  }

  /// How READ BINARY and UPDATE BINARY on an ISO 15693 (Type 5) tag take lengths.
  public enum Type5Access: Sendable, Equatable {
    /// Le/Lc a multiple of the 4-byte block (Le 00 = one block): several blocks at once.
    case blocks
    /// One block per command, whatever Le says (Le/Lc must be the block's 4 bytes to write).
    case oneBlock
  }

  /// What `FF 00 00 00 Lc data` (direct transmit, PC/SC Part 3 §3.2.2.1.8's vendor form) carries.
  public enum DirectTransmit: Sendable, Equatable {
    /// The reader has none: the command gets ``unsupported``.
    case none
    /// FeliCa commands, starting with their length byte, sent to the card as they are.
    case felica
  }

  /// How the reader builds the ATR of a FeliCa or Topaz card (PC/SC Part 3 §3.1.3.2.3 or the
  /// SCM form).
  public enum CardATR: Sendable, Equatable {
    /// The Part 3 storage-card ATR with this standard byte and card name.
    case partThree(standard: UInt8, name: [UInt8])
    /// SCM's own form: `3B 8n 80 01 <card mode> <card type> …` (SCL3711 Reference Manual §5.3.3.3–4).
    case scm
  }

  /// LOAD KEYS (`FF 82 P1 P2 Lc key`) and GENERAL AUTHENTICATE (`FF 86`) as the reader takes them.
  public struct Keys: Sendable, Equatable {
    /// P1 values (key structure) that load a volatile card key.
    public var volatileStructures: Set<UInt8>
    /// P1 values that load a persistent (non-volatile) card key; empty when the reader has none.
    public var persistentStructures: Set<UInt8>
    /// The key numbers (P2) it takes; GENERAL AUTHENTICATE names the same numbers.
    public var slots: Set<UInt8>
    /// The status word for a P1 the reader does not take.
    public var badStructure: StatusWord
    /// The status word for a P2 the reader does not take.
    public var badSlot: StatusWord
    /// True when the obsolete PC/SC 2.01 AUTHENTICATE `FF 88 00 blk type slot` is accepted.
    public var obsoleteAuthenticate: Bool
  }

  /// The `SCardControl` escapes the reader answers (``ReaderControlCode``).
  public enum Escapes: Sendable, Equatable {
    /// None through PC/SC.
    case none
    /// ACS's `E0 00 00 cmd Lc [data]` → `E1 00 00 00 len [data]`: firmware (`18`), LED (`29`),
    /// buzzer (`28`), with this firmware string.
    case acs(firmware: String)
    /// Identiv's one-byte escape codes: `B2 00|01|FF` LED control by firmware.
    case identiv
    /// HID's PC/SC Part 3 vendor command `FF 70 07 6B Lc <TLV>`; firmware `maj min rev`.
    case omnikey(firmware: [UInt8])
  }

  /// The face's name on the command line (``ReaderFaceKind``'s raw value).
  public var face: String
  /// The product, for messages ("ACS ACR1252U").
  public var productName: String
  /// The reader name pcsc-lite shows for it on Linux, without the ` NN SS` suffix.
  public var readerName: String
  /// The tag families it reads (MIFARE Classic as `TagPlatform.mifareClassic`).
  public var families: Set<TagPlatform>
  /// READ BINARY on a Type 2 tag.
  public var type2Read: Type2Read
  /// READ/UPDATE BINARY on a Type 5 tag.
  public var type5Access: Type5Access
  /// True when it has PC/SC Part 3 Manage Session / Transparent Exchange (`FF C2`).
  public var transparentExchange: Bool
  /// What direct transmit (`FF 00 00 00`) carries.
  public var directTransmit: DirectTransmit
  /// True when it takes the ACR122U's LED and buzzer pseudo-APDU `FF 00 40` (→ `90 <LED state>`).
  public var acr122LEDCommand: Bool
  /// True when it takes HID's vendor command `FF 70 07 6B …` through `SCardTransmit` too.
  public var vendorCommandThroughTransmit: Bool
  /// MIFARE Classic key loading.
  public var keys: Keys
  /// What it answers to a CLA FF command it does not have, and to a family's command it lacks.
  public var unsupported: StatusWord
  /// What a READ/UPDATE BINARY or an authentication that failed answers (the tag did not answer,
  /// the address is past its end, the key was not loaded).
  public var failed: StatusWord
  /// The ATR of a FeliCa card.
  public var felicaATR: CardATR
  /// The ATR of a Topaz (Type 1) card.
  public var topazATR: CardATR
  /// The Part 3 card name of an ISO 15693 tag (standard `0B`).
  public var iso15693Name: [UInt8]
  /// The control codes (as pcsc-lite numbers them) that reach its escape.
  public var escapeCodes: Set<UInt32>
  /// The escapes it answers.
  public var escapes: Escapes
  /// True when it takes SCM's FeliCa pseudo-APDUs `FF 40` REQC, `FF 42` Request Service, `FF 44`
  /// Request Response, `FF 46` Read, `FF 48` Write, `FF 4A` Request System Code (SCL3711 Reference
  /// Manual v1.3 §6.4.3; Identiv CLOUD 370x F Reference Manual §6.2.13–6.2.18).
  public var scmFeliCaCommands = false
  /// True when it takes SCM's Type 1 (Topaz) pseudo-APDUs `FF 50` RID … `FF 60` WRITE-NE8
  /// (SCL3711 Reference Manual v1.3 §6.4.1).
  public var scmType1Commands = false

  /// The face that reads `family` when this one does not, for the refusal: the ACR1552U for ISO
  /// 15693, else the ACR122U (the face whose FeliCa and Topaz paths the tool takes today).
  func workingFace(for family: TagPlatform) -> ReaderFaceKind {
    family == .type5 ? .acr1552u : .acr122u
  }
}
