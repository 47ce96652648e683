import CPCSC

/// A PC/SC failure with its context: which operation, on which reader.
public struct PCSCFailure: Error, Sendable, CustomStringConvertible {
  /// The status code the call returned.
  public let error: PCSCError
  /// The PC/SC call, for example "SCardConnect".
  public let operation: String
  /// The reader the call was about; nil for context-wide calls (`SCardListReaders`).
  public let reader: String?

  /// A failure of `operation` (a PC/SC function name) with `error`, on `reader` when there is one.
  public init(_ error: PCSCError, operation: String, reader: String? = nil) {
    self.error = error
    self.operation = operation
    self.reader = reader
  }

  public var description: String {
    if let reader { return "\(error) [\(operation) on \"\(reader)\"]" }
    return "\(error) [\(operation)]"
  }
}

/// The state bits of `SCardGetStatusChange`, with the event counter in the upper 16 bits.
public struct ReaderStateFlags: OptionSet, Hashable, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// The application is not interested in this reader. The corresponding C constant is
  /// `SCARD_STATE_IGNORE` (pcsc-lite `pcsclite.h`).
  public static let ignore = ReaderStateFlags(rawValue: 0x0001)
  /// The state differs from ``ReaderState/currentState``. The corresponding C constant is
  /// `SCARD_STATE_CHANGED`.
  public static let changed = ReaderStateFlags(rawValue: 0x0002)
  /// The reader name is not known to pcscd. The corresponding C constant is `SCARD_STATE_UNKNOWN`.
  public static let unknown = ReaderStateFlags(rawValue: 0x0004)
  /// The reader's state cannot be known (unplugged or busy). The corresponding C constant is
  /// `SCARD_STATE_UNAVAILABLE`.
  public static let unavailable = ReaderStateFlags(rawValue: 0x0008)
  /// No card in the reader. The corresponding C constant is `SCARD_STATE_EMPTY`.
  public static let empty = ReaderStateFlags(rawValue: 0x0010)
  /// A card is in the reader. The corresponding C constant is `SCARD_STATE_PRESENT`.
  public static let present = ReaderStateFlags(rawValue: 0x0020)
  /// The card's ATR matches the one asked about. The corresponding C constant is
  /// `SCARD_STATE_ATRMATCH`.
  public static let atrMatch = ReaderStateFlags(rawValue: 0x0040)
  /// Another application holds the card exclusively. The corresponding C constant is
  /// `SCARD_STATE_EXCLUSIVE`.
  public static let exclusive = ReaderStateFlags(rawValue: 0x0080)
  /// Other applications are connected to the card (shared). The corresponding C constant is
  /// `SCARD_STATE_INUSE`.
  public static let inUse = ReaderStateFlags(rawValue: 0x0100)
  /// The card does not answer (no or a bad ATR). The corresponding C constant is
  /// `SCARD_STATE_MUTE`.
  public static let mute = ReaderStateFlags(rawValue: 0x0200)
  /// The card is present but not powered. The corresponding C constant is `SCARD_STATE_UNPOWERED`.
  public static let unpowered = ReaderStateFlags(rawValue: 0x0400)
}

/// One entry of a status-change query. Feed ``eventState`` back as the next ``currentState``.
public struct ReaderState: Sendable, Hashable {
  /// The reader name, or ``ReaderState/pnpNotification``.
  public var reader: String
  /// The state the caller believes the reader is in (`dwCurrentState`): the call returns when
  /// the reader's state differs from it. 0 asks for the state at once.
  public var currentState: UInt32
  /// The state pcscd found (`dwEventState`): ``ReaderStateFlags`` bits in the lower 16 bits,
  /// the event count in the upper 16.
  public var eventState: UInt32 = 0
  /// The ATR of the card in the reader, when there is one (at most 33 bytes, ISO/IEC 7816-3 §8).
  public var atr: [UInt8] = []

  /// An entry for `reader` that the caller believes in `currentState`.
  public init(reader: String, currentState: UInt32 = 0) {
    self.reader = reader
    self.currentState = currentState
  }

  /// The pseudo reader whose state changes when readers are plugged or unplugged.
  public static let pnpNotification = _pnpNotificationReader

  /// The state bits of ``eventState`` (without the event counter).
  public var flags: ReaderStateFlags { ReaderStateFlags(rawValue: eventState & 0xFFFF) }
  /// How many insertions and removals pcscd counted on this reader.
  public var eventCount: Int { Int(eventState >> 16) }
}

/// The transmission protocol of a connected card.
public struct CardProtocol: RawRepresentable, Hashable, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// T=0, the character-oriented protocol (ISO/IEC 7816-3 §10). The corresponding C constant is
  /// `SCARD_PROTOCOL_T0`.
  public static var t0: CardProtocol { CardProtocol(rawValue: UInt32(_SCARD_PROTOCOL_T0)) }
  /// T=1, the block-oriented protocol (ISO/IEC 7816-3 §11); contactless cards show as T=1. The
  /// corresponding C constant is `SCARD_PROTOCOL_T1`.
  public static var t1: CardProtocol { CardProtocol(rawValue: UInt32(_SCARD_PROTOCOL_T1)) }
  /// The raw protocol (the reader's own framing). The corresponding C constant is
  /// `SCARD_PROTOCOL_RAW`.
  public static var raw: CardProtocol { CardProtocol(rawValue: UInt32(_SCARD_PROTOCOL_RAW)) }
  /// T=0 or T=1, whichever the card offers.
  public static var any: CardProtocol { CardProtocol(rawValue: UInt32(_SCARD_PROTOCOL_T0 | _SCARD_PROTOCOL_T1)) }
  /// No protocol (direct connections to the reader).
  public static var undefined: CardProtocol { CardProtocol(rawValue: 0) }
}

/// How to share the reader with other programs.
public enum ShareMode: Sendable {
  case shared, exclusive, direct
  var value: DWORD {
    switch self {
    case .shared: return _SCARD_SHARE_SHARED
    case .exclusive: return _SCARD_SHARE_EXCLUSIVE
    case .direct: return _SCARD_SHARE_DIRECT
    }
  }
}

/// What happens to the card on disconnect (`SCARD_LEAVE_CARD` … `SCARD_EJECT_CARD`).
public enum Disposition: UInt32, Sendable {
  case leave = 0, reset = 1, unpower = 2, eject = 3
}

/// A PC/SC resource-manager context. The corresponding C type is `SCARDCONTEXT`.
///
/// Released when the object goes away. Safe to ``cancel()`` from another thread.
///
/// `Sendable`: its stored properties are `Sendable` and never change after init; pcsc-lite
/// serialises calls on one context itself and documents `SCardCancel` for use from another thread.
public final class PCSCContext: Sendable {
  let calls: any PCSCCalls
  let handle: SCARDCONTEXT

  /// Establishes a system-scope context.
  /// - Throws: ``PCSCFailure`` (``PCSCError/noService`` when pcscd is not running).
  public convenience init() throws(PCSCFailure) {
    try self.init(calls: LivePCSCCalls())
  }

  init(calls: any PCSCCalls) throws(PCSCFailure) {
    self.calls = calls
    switch calls.establishContext() {
    case .success(let handle): self.handle = handle
    case .failure(let error): throw PCSCFailure(error, operation: "SCardEstablishContext")
    }
  }

  deinit { calls.releaseContext(handle) }

  /// The names of the readers pcscd knows; empty when there are none.
  public func listReaders() throws(PCSCFailure) -> [String] {
    switch calls.listReaders(handle) {
    case .success(let multiString): return Self.parseMultiString(multiString)
    case .failure(let error) where error == .noReadersAvailable: return []
    case .failure(let error): throw PCSCFailure(error, operation: "SCardListReaders")
    }
  }

  /// Splits a NUL-separated, double-NUL-terminated list.
  static func parseMultiString(_ bytes: [UInt8]) -> [String] {
    bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Waits until one of `states` differs from its `currentState`, or the timeout.
  /// - Parameters:
  ///   - states: the readers to watch, each with the state the caller knows; on return each
  ///     ``ReaderState/eventState`` holds the state pcscd found.
  ///   - timeoutMilliseconds: nil waits until ``cancel()``.
  /// - Throws: ``PCSCError/timeout``, ``PCSCError/cancelled``, and service errors.
  public func waitForStatusChange(_ states: inout [ReaderState], timeoutMilliseconds: Int?) throws(PCSCFailure) {
    let timeout: DWORD = timeoutMilliseconds.map { DWORD(max(0, $0)) } ?? DWORD(INFINITE)
    if let error = calls.getStatusChange(handle, timeout: timeout, states: &states) {
      throw PCSCFailure(error, operation: "SCardGetStatusChange")
    }
  }

  /// Makes a blocked ``waitForStatusChange(_:timeoutMilliseconds:)`` return ``PCSCError/cancelled``.
  public func cancel() { _ = calls.cancel(handle) }

  /// Connects to the card in `reader`.
  public func connect(reader: String, share: ShareMode = .shared, protocols: CardProtocol = .any) throws(PCSCFailure) -> Card {
    switch calls.connect(handle, reader: reader, share: share.value, protocols: DWORD(protocols.rawValue)) {
    case .success(let (card, active)):
      return Card(calls: calls, handle: card, activeProtocol: CardProtocol(rawValue: UInt32(active)), reader: reader)
    case .failure(let error):
      throw PCSCFailure(error, operation: "SCardConnect", reader: reader)
    }
  }
}

/// A connection to a card (or, with ``ShareMode/direct``, to the reader). A thin handle: the
/// caller disconnects it (``disconnect(_:)``).
public struct Card: Sendable {
  let calls: any PCSCCalls
  let handle: SCARDHANDLE
  /// The protocol the connection runs (``CardProtocol/t1`` for contactless cards; none for
  /// ``ShareMode/direct`` connections).
  public private(set) var activeProtocol: CardProtocol
  /// The reader this card sits in.
  public let reader: String

  init(calls: any PCSCCalls, handle: SCARDHANDLE, activeProtocol: CardProtocol, reader: String) {
    self.calls = calls
    self.handle = handle
    self.activeProtocol = activeProtocol
    self.reader = reader
  }

  /// Sends one command APDU; the reply keeps SW1 SW2. The corresponding C function is `SCardTransmit`.
  public func transmit(_ command: [UInt8]) throws(PCSCFailure) -> [UInt8] {
    let capacity = command.count > 261 ? _MAX_BUFFER_SIZE_EXTENDED : _MAX_BUFFER_SIZE
    switch calls.transmit(handle, protocol: DWORD(activeProtocol.rawValue), command: command, capacity: capacity) {
    case .success(let reply): return reply
    case .failure(let error): throw PCSCFailure(error, operation: "SCardTransmit", reader: reader)
    }
  }

  /// Sends a reader control (escape) command. `code` is the driver's control code number, as in
  /// `SCARD_CTL_CODE(code)`. The corresponding C function is `SCardControl`.
  public func control(code: UInt32, _ input: [UInt8]) throws(PCSCFailure) -> [UInt8] {
    switch calls.control(handle, code: CPCSC_ctlCode(DWORD(code)), input: input, capacity: _MAX_BUFFER_SIZE_EXTENDED) {
    case .success(let reply): return reply
    case .failure(let error): throw PCSCFailure(error, operation: "SCardControl", reader: reader)
    }
  }

  /// The reader name, state, protocol and ATR. The corresponding C function is `SCardStatus`.
  public func status() throws(PCSCFailure) -> (reader: String, state: UInt32, protocol: CardProtocol, atr: [UInt8]) {
    switch calls.status(handle) {
    case .success(let s): return (s.reader, UInt32(truncatingIfNeeded: s.state), CardProtocol(rawValue: UInt32(s.protocol)), s.atr)
    case .failure(let error): throw PCSCFailure(error, operation: "SCardStatus", reader: reader)
    }
  }

  /// Re-establishes the connection (after ``PCSCError/resetCard``).
  public mutating func reconnect(share: ShareMode = .shared, protocols: CardProtocol = .any, initialization: Disposition = .leave) throws(PCSCFailure) {
    switch calls.reconnect(handle, share: share.value, protocols: DWORD(protocols.rawValue), initialization: DWORD(initialization.rawValue)) {
    case .success(let active): activeProtocol = CardProtocol(rawValue: UInt32(active))
    case .failure(let error): throw PCSCFailure(error, operation: "SCardReconnect", reader: reader)
    }
  }

  /// Ends the connection. The corresponding C function is `SCardDisconnect`.
  public func disconnect(_ disposition: Disposition = .leave) throws(PCSCFailure) {
    if let error = calls.disconnect(handle, disposition: DWORD(disposition.rawValue)) {
      throw PCSCFailure(error, operation: "SCardDisconnect", reader: reader)
    }
  }

  /// Runs `body` and disconnects afterwards, whatever happens.
  public func disconnectAfter<T>(_ disposition: Disposition = .leave, _ body: (Card) throws -> T) rethrows -> T {
    defer { try? disconnect(disposition) }
    return try body(self)
  }

  /// Starts exclusive access for a sequence of commands. `SCardBeginTransaction`.
  public func beginTransaction() throws(PCSCFailure) {
    if let error = calls.beginTransaction(handle) { throw PCSCFailure(error, operation: "SCardBeginTransaction", reader: reader) }
  }

  /// Ends the transaction. `SCardEndTransaction`.
  public func endTransaction(_ disposition: Disposition = .leave) throws(PCSCFailure) {
    if let error = calls.endTransaction(handle, disposition: DWORD(disposition.rawValue)) {
      throw PCSCFailure(error, operation: "SCardEndTransaction", reader: reader)
    }
  }
}
