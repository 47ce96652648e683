/// The NFC Forum tag platform a target speaks.
public enum TagPlatform: String, Hashable, Sendable, CaseIterable {
  case type1, type2, type3, type4, type5

  /// "Type 2" and so on.
  public var displayName: String {
    switch self {
    case .type1: return "Type 1"
    case .type2: return "Type 2"
    case .type3: return "Type 3"
    case .type4: return "Type 4"
    case .type5: return "Type 5"
    }
  }
}

/// A tag found in a reader's field, with the link to talk to it.
public struct DetectedTarget {
  /// The reader that found it.
  public var readerName: String
  /// UID (Types 1, 2, 4A, 5) or IDm (Type 3).
  public var identifier: [UInt8]
  /// The ATR the reader built for it (PC/SC Part 3), empty for links without one.
  public var atr: [UInt8]
  /// The platform, when the reader could tell; nil when it could not (the caller reports "unsupported").
  public var platform: TagPlatform?
  /// What the reader said about the card, for people (for example "MIFARE Ultralight", "FeliCa").
  public var cardName: String
  /// Extra identification: FeliCa PMm and system code, Type 1 header ROM, ATS, and so on.
  public var parameters: [String: [UInt8]]
  /// The link to the tag.
  public var link: any Transceiver

  public init(readerName: String, identifier: [UInt8], atr: [UInt8], platform: TagPlatform?,
              cardName: String, parameters: [String: [UInt8]] = [:], link: any Transceiver) {
    self.readerName = readerName
    self.identifier = identifier
    self.atr = atr
    self.platform = platform
    self.cardName = cardName
    self.parameters = parameters
    self.link = link
  }
}

/// Why a reader could not be polled.
public enum PollError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The PC/SC service is not running (or the emulator is gone).
  case serviceUnavailable(String)
  /// No such reader, or it was unplugged.
  case readerUnavailable(String)
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
    case .serviceUnavailable(let m), .readerUnavailable(let m), .busy(let m), .failed(let m): return m
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
  /// Makes a blocked wait return ``PollError/cancelled``. Safe to call from another thread.
  func cancel()
}
