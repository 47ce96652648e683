import Dispatch
import Locking
import NDEF
import NFCTags
import NFCTransport

/// Whether a tag holds NDEF and may be written. Core NFC's `NFCNDEFStatus`.
public typealias NFCNDEFStatus = NDEFStatus

/// A tag that speaks NDEF. Core NFC's `NFCNDEFTag` protocol: every tag a session finds conforms
/// (``NFCMiFareTag``, ``NFCISO7816Tag``, ``NFCFeliCaTag``, ``NFCISO15693Tag``).
///
/// Commands work after ``NFCNDEFReaderSession/connect(to:)`` (or the tag reader session's), until
/// the session is invalidated or polling restarts; they block the calling thread (the completion
/// handler forms run their handler on the session's queue).
public protocol NFCNDEFTag: AnyObject, Sendable {
  /// The connection to the tag that carries its commands (nfctag: shared by all tag kinds).
  var connection: TagConnection { get }
}

/// The link to one tag found by a session: what the reader learnt about it, and its commands.
///
/// Made by the session; every command checks that its session is alive, that polling has not
/// restarted and that this tag is the connected one.
public final class TagConnection: Sendable {
  let engine: SessionEngine
  let generation: Int
  /// UID (Types 1, 2, 4, 5) or IDm (Type 3).
  public let identifier: [UInt8]
  /// The reader the tag is in.
  public let readerName: String
  /// The ATR the reader built for the tag (PC/SC Part 3); empty when there is none.
  public let atr: [UInt8]
  /// The NFC Forum platform, when the reader could tell.
  public let platformType: TagPlatform?
  /// What the reader called the card ("MIFARE Ultralight", "FeliCa"…).
  public let cardName: String
  /// What else the reader learnt while identifying the tag (GET_VERSION, PMm, historical bytes…).
  public let details: TargetDetails

  struct Parts {
    var platform: (any NDEFTagPlatform)?
    var platformError: TagError?
    var link: any Transceiver
  }
  /// The links and platforms of the tags of one poll, shared by their connections; this tag's
  /// are at `index`. Touched only inside `engine.perform`, which serialises every command to this
  /// session's tags.
  private let parts: Locked<[Parts]>
  private let index: Int

  /// The connections to the tags one poll found. `targets` is sent: their links go behind one
  /// lock, and no one else holds them.
  static func connections(to targets: sending [DetectedTarget], engine: SessionEngine,
                          generation: Int) -> [TagConnection] {
    let found = targets.map { target in
      (identifier: target.identifier, readerName: target.readerName, atr: target.atr,
       platform: target.platform, cardName: target.cardName, details: target.details)
    }
    let parts = Locked(targets.map { target -> Parts in
      var parts = Parts(platform: nil, platformError: nil, link: target.link)
      do throws(TagError) { parts.platform = try makePlatform(for: target) } catch { parts.platformError = error }
      return parts
    })
    return found.indices.map { index in
      let target = found[index]
      return TagConnection(engine: engine, generation: generation, identifier: target.identifier,
                           readerName: target.readerName, atr: target.atr, platformType: target.platform,
                           cardName: target.cardName, details: target.details, parts: parts, index: index)
    }
  }

  private init(engine: SessionEngine, generation: Int, identifier: [UInt8], readerName: String, atr: [UInt8],
               platformType: TagPlatform?, cardName: String, details: TargetDetails, parts: Locked<[Parts]>,
               index: Int) {
    self.engine = engine
    self.generation = generation
    self.identifier = identifier
    self.readerName = readerName
    self.atr = atr
    self.platformType = platformType
    self.cardName = cardName
    self.details = details
    self.parts = parts
    self.index = index
  }

  /// False once the session is invalidated or polling restarted.
  public var isAvailable: Bool { engine.isUsable(generation: generation) }

  /// Runs `body` with the tag's NFC Forum platform: the NDEF commands.
  func withPlatform<T: Sendable>(_ body: (any NDEFTagPlatform) throws(TagError) -> T) throws(NFCReaderError) -> T {
    try engine.perform(ObjectIdentifier(self), generation: generation) { () throws(NFCReaderError) -> T in
      try parts.withLock { all throws(NFCReaderError) -> T in
        let parts = all[index]
        guard let platform = parts.platform else {
          throw NFCReaderError(parts.platformError ?? TagError.unsupported("this tag has no NDEF platform"))
        }
        do { return try body(platform) } catch { throw NFCReaderError(error) }
      }
    }
  }

  /// Runs `body` with the tag's link, between tag commands (the reader's own commands).
  func withLink<T: Sendable>(_ body: (any Transceiver) throws(TransceiveError) -> T) throws(NFCReaderError) -> T {
    try engine.perform(ObjectIdentifier(self), generation: generation) { () throws(NFCReaderError) -> T in
      try parts.withLock { all throws(NFCReaderError) -> T in
        let parts = all[index]
        do { return try body(parts.link) } catch { throw NFCReaderError(error) }
      }
    }
  }

  /// Sends one raw tag command (the frame the tag sees, without CRC) and returns its answer.
  /// A Type 2 ACK comes back as `[0x0A]` and a NAK as its 4-bit value, as on air; an ISO 15693
  /// error as `01 code`.
  func transceive(_ command: [UInt8]) throws(NFCReaderError) -> [UInt8] {
    guard !command.isEmpty else {
      throw NFCReaderError(.readerErrorInvalidParameterLength, "the command is empty")
    }
    // A raw command may authenticate or change the tag's state: none of it outlives the session.
    engine.resetOnRelease()
    return try engine.perform(ObjectIdentifier(self), generation: generation) { () throws(NFCReaderError) -> [UInt8] in
      try parts.withLock { all throws(NFCReaderError) -> [UInt8] in
        let parts = all[index]
        guard command.count <= parts.link.capabilities.maxCommandLength else {
          throw NFCReaderError(.readerTransceiveErrorPacketTooLong,
                               "the command has \(command.count) bytes; this reader carries at most \(parts.link.capabilities.maxCommandLength)")
        }
        do throws(TransceiveError) {
          return try parts.link.transceive(command)
        } catch .nak(let value) {
          // The tag's refusal is its answer: a Type 2 NAK is 4 bits; ISO 15693 answers flags 01 and a code.
          return platformType == .type5 ? [0x01, value] : [value]
        } catch {
          throw NFCReaderError(error)
        }
      }
    }
  }
}

extension NFCNDEFTag {
  /// UID or IDm.
  public var identifier: [UInt8] { connection.identifier }
  /// False once the session is invalidated or polling restarted. Core NFC's `isAvailable`.
  public var isAvailable: Bool { connection.isAvailable }

  /// The NDEF status and the capacity in bytes: the largest message that fits.
  public func queryNDEFStatus() throws(NFCReaderError) -> (NFCNDEFStatus, Int) {
    let report = try connection.withPlatform { platform throws(TagError) in try platform.queryNDEFStatus() }
    return (report.status, report.capacity)
  }

  /// Reads the message. An empty tag is ``NFCReaderError/Code-swift.struct/ndefReaderSessionErrorZeroLengthMessage`` (403);
  /// a message that is not valid NDEF is a tag response error (102).
  public func readNDEF() throws(NFCReaderError) -> NDEFMessage {
    let bytes = try connection.withPlatform { platform throws(TagError) in try platform.readNDEF() }
    guard !bytes.isEmpty else { throw NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the tag holds no NDEF message") }
    do { return try NDEFMessage(decoding: bytes) } catch { throw NFCReaderError(error) }
  }

  /// Writes `message` tear-safely and reads it back. The platform checks format, read-only state
  /// and capacity before its first command, so a message that does not fit changes nothing (402).
  public func writeNDEF(_ message: NDEFMessage) throws(NFCReaderError) {
    try writeNDEF(message, verify: true)
  }

  /// Writes `message`; `verify: false` skips the read-back (nfctag).
  public func writeNDEF(_ message: NDEFMessage, verify: Bool) throws(NFCReaderError) {
    guard !message.records.isEmpty else {
      throw NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the message is empty")
    }
    let bytes: [UInt8]
    do { bytes = try message.encoded() } catch { throw NFCReaderError(.readerErrorInvalidParameter, "the message cannot be encoded: \(error)", underlying: error) }
    try connection.withPlatform { platform throws(TagError) in try platform.writeNDEF(bytes, verify: verify) }
  }

  /// Makes the tag read-only, permanently.
  public func writeLock() throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try platform.makeReadOnly() }
  }

  // MARK: Completion-handler faces, as in Core NFC

  /// ``queryNDEFStatus()`` with Core NFC's completion handler, run on the session's queue.
  public func queryNDEFStatus(completionHandler: @escaping @Sendable (NFCNDEFStatus, Int, NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try queryNDEFStatus() }
    connection.engine.queue.async {
      switch result {
      case .success(let (status, capacity)): completionHandler(status, capacity, nil)
      case .failure(let error): completionHandler(.notSupported, 0, error)
      }
    }
  }

  /// ``readNDEF()`` with Core NFC's completion handler, run on the session's queue.
  public func readNDEF(completionHandler: @escaping @Sendable (NDEFMessage?, NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try readNDEF() }
    connection.engine.queue.async {
      switch result {
      case .success(let message): completionHandler(message, nil)
      case .failure(let error): completionHandler(nil, error)
      }
    }
  }

  /// ``writeNDEF(_:)`` with Core NFC's completion handler, run on the session's queue.
  public func writeNDEF(_ message: NDEFMessage, completionHandler: @escaping @Sendable (NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try writeNDEF(message) }
    connection.engine.queue.async { completionHandler(result.failureValue) }
  }

  /// ``writeLock()`` with Core NFC's completion handler, run on the session's queue.
  public func writeLock(completionHandler: @escaping @Sendable (NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try writeLock() }
    connection.engine.queue.async { completionHandler(result.failureValue) }
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
