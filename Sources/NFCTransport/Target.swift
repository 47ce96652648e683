import Locking
/// The NFC Forum tag platform a target speaks, or MIFARE Classic, whose NDEF mapping is NXP's
/// (AN1304) rather than the NFC Forum's.
public enum TagPlatform: String, Hashable, Sendable, CaseIterable {
  case type1, type2, type3, type4, type5
  /// MIFARE Classic Mini, 1K or 4K: sectors behind keys, NDEF through the MAD (NXP AN1304).
  case mifareClassic = "mifare-classic"

  /// "Type 2" and so on.
  public var displayName: String {
    switch self {
    case .type1: return "Type 1"
    case .type2: return "Type 2"
    case .type3: return "Type 3"
    case .type4: return "Type 4"
    case .type5: return "Type 5"
    case .mifareClassic: return "MIFARE Classic"
    }
  }
}

/// What detection learnt about a target beyond its identifier, ATR and platform.
///
/// Every field is what a reader driver actually asked for or parsed while identifying the card;
/// a field stays nil (or empty) when this reader path does not learn it. The values come from the
/// tag or the reader, so they are checked for length before they are stored, and users of them
/// must still treat them as untrusted.
public struct TargetDetails: Hashable, Sendable {
  /// The Type 2 GET_VERSION (`60`) answer, 8 bytes (vendor, product type, subtype, major and minor
  /// version, storage size, protocol type), when the reader could send it (ACR122U direct
  /// transmit). It names the chip (NTAG213/215/216, Ultralight EV1) without further probes.
  /// NXP NTAG213/215/216 datasheet §10.1.
  public var type2Version: [UInt8]?
  /// The reader's firmware string (`FF 00 48 00 00`, for example "ACR122U207"), when the reader is
  /// an ACR122U and was asked (ACS ACR122U Application Programming Interface, Get Firmware Version).
  public var readerFirmware: String?
  /// The FeliCa PMm, 8 bytes (IC code in bytes 0–1, maximum response times after), from the
  /// Polling answer when the reader polled for it (ACR122U InListPassiveTarget). JIS X 6319-4.
  public var felicaPMm: [UInt8]?
  /// The FeliCa system code the Polling answer returned, 2 bytes (12FCh for NDEF, 88B4h for a
  /// Lite-S), when the reader asked for it (request code 01).
  public var felicaSystemCode: [UInt8]?
  /// The historical bytes of an ISO-DEP (Type 4) card: a PC/SC Part 3 reader builds the ATR of a
  /// contactless ISO 14443-4 card from the ATS historical bytes (type A) or the ATQB application
  /// data and protocol info (type B). Empty for storage cards and when there is no ATR.
  /// PC/SC Part 3 §3.1.3.2.3.
  public var historicalBytes: [UInt8]

  /// Details from what detection learnt; everything not given is unknown.
  public init(type2Version: [UInt8]? = nil, readerFirmware: String? = nil, felicaPMm: [UInt8]? = nil,
              felicaSystemCode: [UInt8]? = nil, historicalBytes: [UInt8] = []) {
    self.type2Version = type2Version
    self.readerFirmware = readerFirmware
    self.felicaPMm = felicaPMm
    self.felicaSystemCode = felicaSystemCode
    self.historicalBytes = historicalBytes
  }
}

/// A tag found in a reader's field, with the link to talk to it.
///
/// Not `Sendable`: ``link`` is a connection object used from one thread at a time. Everything
/// else (``identifier``, ``atr``, ``platform``, ``cardName``, ``details``) is a `Sendable` value
/// and can be copied out to cross threads.
public struct DetectedTarget {
  /// The reader that found it.
  public var readerName: String
  /// UID (Types 1, 2, 4A, 5) or IDm (Type 3). A Type 5 UID is most significant byte first
  /// (`E0` first, ISO/IEC 15693-3 §4.1), whatever order the reader reported it in.
  public var identifier: [UInt8]
  /// The ATR the reader built for it (PC/SC Part 3), empty for links without one.
  public var atr: [UInt8]
  /// The platform, when the reader could tell; nil when it could not (the caller reports "unsupported").
  public var platform: TagPlatform?
  /// What the reader said about the card, for people (for example "MIFARE Ultralight", "FeliCa").
  public var cardName: String
  /// What detection learnt beyond the identifier: GET_VERSION, FeliCa PMm and system code,
  /// historical bytes, the reader's firmware.
  public var details: TargetDetails
  /// The link to the tag.
  public var link: any Transceiver

  /// A target as a reader driver (or a test) found it; see each property for its meaning.
  public init(readerName: String, identifier: [UInt8], atr: [UInt8], platform: TagPlatform?,
              cardName: String, details: TargetDetails = TargetDetails(), link: any Transceiver) {
    self.readerName = readerName
    self.identifier = identifier
    self.atr = atr
    self.platform = platform
    self.cardName = cardName
    self.details = details
    self.link = link
  }
}

/// The link is a non-Sendable connection, so a target must not cross threads; this says so
/// explicitly instead of leaving it to inference.
@available(*, unavailable, message: "DetectedTarget holds a non-Sendable link; copy out its Sendable fields instead")
extension DetectedTarget: Sendable {}

/// Why a reader could not be polled.
public enum PollError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The PC/SC service is not running (or the emulator is gone).
  case serviceUnavailable(String)
  /// No such reader, or it was unplugged.
  case readerUnavailable(String)
  /// No reader is attached at all.
  case noReader(String)
  /// Nothing arrived before the deadline.
  case timeout
  /// Another program holds the reader exclusively.
  case busy(String)
  /// Polling was cancelled.
  case cancelled
  /// Any other failure, described.
  case failed(String)

  public var description: String {
    switch self {
    case .serviceUnavailable(let m), .readerUnavailable(let m), .noReader(let m), .busy(let m), .failed(let m): return m
    case .timeout: return "no tag was presented before the timeout"
    case .cancelled: return "cancelled"
    }
  }
}

/// A reader that can wait for tags: a PC/SC reader, or an emulated one.
///
/// Sessions are built on this, so they run the same code over hardware and the emulator.
public protocol TagPoller: AnyObject, Sendable {
  /// The reader's name, as PC/SC lists it.
  var readerName: String { get }
  /// Waits until at least one tag is in the field and returns the targets found, connected.
  ///
  /// - Parameter timeoutMilliseconds: how long to wait; nil waits until ``cancel()``.
  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget]
  /// Waits until the field is empty (the tag was taken away).
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError)
  /// Releases the current target so the next ``waitForTargets(timeoutMilliseconds:)`` starts fresh.
  func release()
  /// Releases the current target and resets it (PC/SC: `SCARD_RESET_CARD`), so that no state a
  /// command set (an authentication, a selected sector) outlives the connection.
  func releaseResetting()
  /// Makes a blocked wait return ``PollError/cancelled``. Safe to call from another thread.
  func cancel()
  /// The session that polled this reader has ended and let the tag go (called once per session,
  /// after its last release). A reader that keeps what its tags hold saves the tag still in the
  /// field here: the simulator's feed with an image folder writes its image, as a feed leaving
  /// by itself does.
  func sessionEnded()
  /// APDUs exchanged with the reader so far (nfctag: round trips are what a user waits for).
  var exchangeCount: Int { get }
}

extension TagPoller {
  /// Pollers with nothing to reset release as usual.
  public func releaseResetting() { release() }
  /// Pollers that keep nothing of their tags do nothing when a session ends.
  public func sessionEnded() {}
  /// Pollers that do not count report 0.
  public var exchangeCount: Int { 0 }
}

/// A thread-safe count of exchanges, shared by a poller and the transports it makes.
public final class ExchangeCounter: Sendable {
  private let count = Locked(0)
  public init() {}
  /// The count so far.
  public var value: Int { count.withLock { $0 } }
  /// Adds one.
  public func increment() { count.withLock { $0 += 1 } }
}
