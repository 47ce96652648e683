import NFCTransport

/// One fault to inject at one APDU: what `nfctag emulate --fault KIND[:SECONDS]@N` asks for.
///
/// APDUs are counted from 1, as `--remove-after` counts them: the host's commands to the card,
/// not vpcd's power and ATR messages.
/// - `garbage`: the tag runs the command, but the reader's answer is replaced by bytes that mean
///   nothing (``FaultyCard/garbage``): an answer mangled on its way back.
/// - `status`: the reader answers a status word of failure, `6F 00` (no precise diagnosis), with
///   no data; the command does not reach the tag.
/// - `nak`: the tag refuses the command, as a tag answers a page it does not have or a locked one:
///   a Type 1/2 NAK 0 (``FaultInjectingTag``), shown the way the reader face shows a NAK. An APDU
///   that reaches no tag (the reader's own, such as `FF CA`) gets `status` instead.
/// - `slow`: the answer comes `seconds` late (10 by default), after the tag ran the command.
/// - `drop`: the connection to vpcd closes when the APDU arrives, unanswered, as if the reader were
///   unplugged mid-command; the command does not reach the tag. Only the vpcd bridge can do this
///   (`VPCDBridge`); in process it is a removal.
public struct InjectedFault: Hashable, Sendable, CustomStringConvertible {
  /// The faults, as `--fault` names them (see above).
  public enum Kind: String, CaseIterable, Sendable { case garbage, status, nak, slow, drop }
  /// Which fault.
  public var kind: Kind
  /// The APDU that gets the fault, from 1.
  public var apdu: Int
  /// `slow`: how late the answer comes.
  public var seconds: Double

  /// A `kind` fault at APDU `apdu` (from 1); `seconds` is how late a `slow` answer comes.
  public init(_ kind: Kind, at apdu: Int, seconds: Double = 10) {
    self.kind = kind
    self.apdu = apdu
    self.seconds = seconds
  }

  /// Parses `KIND@N` or `slow:SECONDS@N`; nil for anything else (N from 1, SECONDS from 0 to 600).
  public init?(parsing text: String) {
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, let n = Int(parts[1]), n >= 1 else { return nil }
    let head = parts[0].split(separator: ":", omittingEmptySubsequences: false)
    guard let kind = Kind(rawValue: String(head[0])) else { return nil }
    var seconds = 10.0
    if head.count == 2 {
      guard kind == .slow, let value = Double(head[1]), value >= 0, value <= 600 else { return nil }
      seconds = value
    } else if head.count > 2 {
      return nil
    }
    self.init(kind, at: n, seconds: seconds)
  }

  /// `nak@7`, `slow:2@5`.
  public var description: String {
    kind == .slow && seconds != 10 ? "slow:\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))@\(apdu)"
                                    : "\(kind.rawValue)@\(apdu)"
  }

  /// "garbage|status|nak|slow[:SECONDS]|drop" for help texts.
  public static let kinds = "garbage|status|nak|slow[:SECONDS]|drop"
}

/// A tag that refuses the next command when asked to: the `nak` fault. Everything else goes to
/// the tag it wraps.
public final class FaultInjectingTag: VirtualTag {
  /// The tag that answers every command not refused.
  public let base: any VirtualTag
  /// Set for the one APDU that gets a NAK; the first command the face sends the tag meanwhile is
  /// refused (and clears it).
  public var refusesNextCommand = false
  /// True once a command was refused since ``refusesNextCommand`` was set.
  public private(set) var refused = false

  /// Wraps `base`; nothing is refused until ``refusesNextCommand`` is set.
  public init(_ base: any VirtualTag) { self.base = base }

  /// The wrapped tag's platform.
  public var platform: TagPlatform { base.platform }
  /// The wrapped tag's UID or IDm.
  public var identifier: [UInt8] { base.identifier }
  /// The wrapped tag's activation data.
  public var technology: RFTechnology { base.technology }
  /// The wrapped tag's product name.
  public var productName: String { base.productName }
  /// The wrapped tag's memory image.
  public var memoryImage: [UInt8] { base.memoryImage }
  /// The wrapped tag's memory generation.
  public var memoryGeneration: Int { base.memoryGeneration }
  /// Resets the wrapped tag; a pending refusal stays.
  public func reset() { base.reset() }

  /// A NAK 0 (Type 1/2 NAK: the page is not there or is locked) when ``refusesNextCommand`` is set,
  /// else the wrapped tag's answer.
  public func respond(to frame: [UInt8]) -> TagResponse {
    if refusesNextCommand {
      refusesNextCommand = false
      refused = true
      return .nak(0)
    }
    return base.respond(to: frame)
  }

  /// Arms the refusal for one APDU; returns whether a command was refused during it.
  func refusing(_ body: () -> [UInt8]) -> (answer: [UInt8], refused: Bool) {
    refusesNextCommand = true
    refused = false
    let answer = body()
    refusesNextCommand = false
    return (answer, refused)
  }
}

/// A reader face with faults at given APDUs (``InjectedFault``, all kinds but `drop`): the card
/// `nfctag emulate --fault` shows to pcscd.
public final class FaultyCard: VirtualCard {
  /// The bytes a `garbage` fault answers: not a PN532 frame, not a status word any command ends with.
  public static let garbage: [UInt8] = [0x5A, 0xA5, 0x13, 0x37, 0xC3]
  /// The status word a `status` fault answers: no precise diagnosis.
  public static let failure: [UInt8] = [0x6F, 0x00]

  /// The reader face that answers every APDU without a fault.
  public let base: any VirtualCard
  /// The wrapped tag, when `nak` faults are to be injected.
  public let tag: FaultInjectingTag?
  private var faults: [Int: InjectedFault]
  /// APDUs seen so far.
  public private(set) var count = 0
  /// The faults injected so far, in order.
  public private(set) var injected: [InjectedFault] = []
  /// Called as each fault is injected (on the thread that called ``transmit(_:)``).
  public var onInject: ((InjectedFault) -> Void)?

  /// - Parameters:
  ///   - base: the reader face, with `tag` (when given) in its field.
  ///   - tag: the face's tag, wrapped, for `nak` faults.
  ///   - faults: the faults; `drop` ones are ignored here (the bridge closes the connection).
  public init(_ base: any VirtualCard, tag: FaultInjectingTag?, faults: [InjectedFault]) {
    self.base = base
    self.tag = tag
    self.faults = Dictionary(faults.filter { $0.kind != .drop }.map { ($0.apdu, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The face's ATR.
  public var atr: [UInt8] { base.atr }
  /// Powers the face on; the APDU count goes on.
  public func powerOn() { base.powerOn() }
  /// Powers the face off; the APDU count goes on.
  public func powerOff() { base.powerOff() }
  /// Resets the face; the APDU count goes on.
  public func reset() { base.reset() }

  /// The face's answer: faults spoil APDUs, not reader control commands, which are not counted.
  public func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? { base.control(code: code, data) }

  /// Counts `apdu` and answers it: with the fault set for that count (garbage, `6F 00`, a NAK, a
  /// late answer), else as the face does.
  public func transmit(_ apdu: [UInt8]) -> [UInt8] {
    count += 1
    guard let fault = faults[count] else { return base.transmit(apdu) }
    injected.append(fault)
    onInject?(fault)
    switch fault.kind {
    case .garbage:
      _ = base.transmit(apdu)
      return Self.garbage
    case .status, .drop:
      return Self.failure
    case .nak:
      guard let tag else { return Self.failure }
      let (answer, refused) = tag.refusing { base.transmit(apdu) }
      return refused ? answer : Self.failure
    case .slow:
      let answer = base.transmit(apdu)
      LibC.sleep(microseconds: Int(fault.seconds * 1_000_000))
      return answer
    }
  }
}
