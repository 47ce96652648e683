import PCSC

/// Sends one escape to a reader: `SCardControl` with `SCARD_CTL_CODE(code)`. The seam the
/// identification and the ACS escapes go through; ``ReaderEscapeChannel`` is the PC/SC one.
public protocol ReaderEscaping: AnyObject {
  /// The reader's PC/SC name.
  var readerName: String { get }
  /// Sends `data` with control code `code` (as in `SCARD_CTL_CODE(code)`) and returns the answer.
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8]
}

/// A direct connection to a reader (`SCARD_SHARE_DIRECT`, no card needed) for its escapes.
///
/// pcsc-lite lets `SCardControl` run on a direct connection without a card (pcsc-lite
/// `winscard.c`, `SCardConnect` with `SCARD_SHARE_DIRECT`); whether the reader's driver then
/// passes the escape is the driver's choice: libccid only with `ifdDriverOptions` 0x0001
/// (libccid `Info.plist`), acsccid always for `SCARD_CTL_CODE(3500)` (acsccid `ifdhandler.c`).
public final class ReaderEscapeChannel: ReaderEscaping {
  /// The reader's PC/SC name.
  public let readerName: String
  private let card: Card

  /// Opens `reader` directly.
  /// - Throws: `PollError` when pcscd refuses the connection.
  public init(context: PCSCContext, reader: String) throws(PollError) {
    readerName = reader
    do {
      card = try context.connect(reader: reader, share: .direct, protocols: .undefined)
    } catch {
      throw PollError(error)
    }
  }

  /// `SCardControl`; a PC/SC failure is `TransceiveError.transport(_:)` with its text.
  public func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    do { return try card.control(code: code, data) } catch { throw .transport(error.description) }
  }

  /// Ends the connection.
  public func close() { try? card.disconnect(.leave) }
}

/// Which reader model a reader is, told by what it answers, its name only as a hint.
public struct ReaderIdentification: Sendable, Equatable {
  /// How the model was found.
  public enum Evidence: Sendable, Equatable {
    /// The reader answered its firmware string through an escape with this control code.
    case firmware(String, controlCode: UInt32)
    /// Only the name suggests it (no escape answered: a driver that refuses escapes without a card).
    case nameOnly
    /// Neither answers nor name tell.
    case unknown
  }

  /// The model, when anything tells it.
  public var model: ReaderModel?
  /// How it was told.
  public var evidence: Evidence

  /// `model`, told by `evidence`.
  public init(model: ReaderModel?, evidence: Evidence) {
    self.model = model
    self.evidence = evidence
  }

  /// The control codes an escape may need: `SCARD_CTL_CODE(3500)` (ACS's and HID's
  /// `IOCTL_CCID_ESCAPE`: acsccid, and the code ACS manuals name, ACM1252U-Y3 Reference Manual
  /// §5.3) and `SCARD_CTL_CODE(1)` (libccid's `IOCTL_SMARTCARD_VENDOR_IFD_EXCHANGE`).
  public static let escapeCodes: [UInt32] = [3500, 1]

  /// Asks the reader, then its name.
  ///
  /// Probes, at most four `SCardControl` calls and none on a tag: ACS's Get Firmware Version
  /// `E0 00 00 18 00` → `E1 00 00 00 len ASCII` (ACM1252U-Y3 §5.3.1; the ACR1552U the same,
  /// entur/android-nfc-lib `ACR1552Commands.java`), then the ACR122U's `FF 00 48 00 00` → "ACR122U…"
  /// (ACR122U API V2.04 §6.3), each with the codes of ``escapeCodes``. Called by `readers --probe`
  /// and `doctor`, never on a tag command's path (docs/performance.md's counts stay).
  /// The name orders the probes (a reader named ACR122U gets its own first, so that it sees no
  /// ACS escape it does not know when it answers its own); it never decides the answer.
  public static func identify(_ escape: any ReaderEscaping) -> ReaderIdentification {
    func acs() -> ReaderIdentification? {
      for code in escapeCodes {
        if let reply = try? escape.control(code: code, ACSEscape.firmwareCommand), let text = ACSEscape.firmware(in: reply),
           let model = ReaderModel.named(byFirmware: text) {
          return ReaderIdentification(model: model, evidence: .firmware(text, controlCode: code))
        }
      }
      return nil
    }
    func acr122() -> ReaderIdentification? {
      for code in escapeCodes {
        if let reply = try? escape.control(code: code, [0xFF, 0x00, 0x48, 0x00, 0x00]), reply.starts(with: Array("ACR122".utf8)) {
          let text = String(decoding: reply.prefix { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
          return ReaderIdentification(model: .acr122u, evidence: .firmware(text, controlCode: code))
        }
      }
      return nil
    }
    let found = ReaderModel.hinted(byName: escape.readerName) == .acr122u ? acr122() ?? acs() : acs() ?? acr122()
    return found ?? byName(escape.readerName)
  }

  /// The model the name suggests, marked as such.
  public static func byName(_ name: String) -> ReaderIdentification {
    if let model = ReaderModel.hinted(byName: name) { return ReaderIdentification(model: model, evidence: .nameOnly) }
    return ReaderIdentification(model: nil, evidence: .unknown)
  }

  /// For people: "ACS ACR1252U (firmware ACR1252U_V202.2)", "ACS ACR1252U (by its name)", "unknown model".
  public var description: String {
    switch (model, evidence) {
    case (let model?, .firmware(let text, _)): return "\(model.productName) (firmware \(text))"
    case (let model?, _): return "\(model.productName) (by its name; it answered no escape)"
    case (nil, _): return "unknown model (generic PC/SC Part 3)"
    }
  }
}

/// ACS's PC/SC escapes (`E0 00 00 cmd Lc data` → `E1 00 00 00 len data`), ACM1252U-Y3 USB NFC
/// Reader Module Reference Manual V1.03 §5.3 (the module version of the ACR1252U); the ACR1552U
/// takes the same LED and buzzer frames (entur/android-nfc-lib `ACR1552Commands.java`).
public struct ACSEscape {
  let escape: any ReaderEscaping
  let code: UInt32
  /// Escapes through `escape` with control code `code` (``ReaderIdentification/escapeCodes``).
  public init(escape: any ReaderEscaping, code: UInt32) {
    self.escape = escape
    self.code = code
  }

  /// Get Firmware Version, §5.3.1.
  static let firmwareCommand: [UInt8] = [0xE0, 0x00, 0x00, 0x18, 0x00]

  /// The ASCII firmware of a Get Firmware Version answer, nil when it is not one.
  static func firmware(in reply: [UInt8]) -> String? {
    guard reply.count > 5, reply.starts(with: [0xE1, 0x00, 0x00, 0x00]), Int(reply[4]) == reply.count - 5 else { return nil }
    return String(decoding: reply.dropFirst(5), as: UTF8.self)
  }

  private func send(_ command: UInt8, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try escape.control(code: code, [0xE0, 0x00, 0x00, command, UInt8(truncatingIfNeeded: data.count)] + data)
    guard reply.count >= 5, reply.starts(with: [0xE1, 0x00, 0x00, 0x00]), Int(reply[4]) == reply.count - 5 else {
      throw .malformedResponse(reply)
    }
    return Array(reply.dropFirst(5))
  }

  /// The firmware string, for example "ACR1252U_V202.2".
  public func firmware() throws(TransceiveError) -> String {
    String(decoding: try send(0x18, []), as: UTF8.self)
  }

  /// Sets the LEDs (`E0 00 00 29 01 state`, §5.3.2): bit 0 the first LED (red on the ACR1252U,
  /// blue on the ACR1552U), bit 1 green.
  /// - Returns: the state the reader reports.
  @discardableResult
  public func setLEDs(first: Bool, green: Bool) throws(TransceiveError) -> UInt8 {
    let state: UInt8 = (first ? 0x01 : 0) | (green ? 0x02 : 0)
    return try send(0x29, [state]).last ?? state
  }

  /// Sounds the buzzer for `milliseconds` (`E0 00 00 28 01 t`, t in 10 ms units, 10–2550 ms).
  public func beep(milliseconds: Int) throws(TransceiveError) {
    _ = try send(0x28, [UInt8(clamping: max(1, milliseconds / 10))])
  }

  /// The outcome of a tag: green and a 100 ms beep, or the first (red) LED and a 300 ms beep.
  public func signal(_ outcome: ReaderSignal) throws(TransceiveError) {
    switch outcome {
    case .success:
      try setLEDs(first: false, green: true)
      try beep(milliseconds: 100)
    case .failure:
      try setLEDs(first: true, green: false)
      try beep(milliseconds: 300)
    }
  }
}
