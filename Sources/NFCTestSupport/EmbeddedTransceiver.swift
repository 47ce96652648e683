import NFCTransport

/// An in-memory `Transceiver` that replays a script of commands and answers, like NIO's
/// `EmbeddedChannel`.
///
/// Each step names the command the code under test must send and what the "tag" answers. A command
/// that differs from the script throws `TransceiveError.unexpectedCommand(_:expected:)`.
/// - Warning: Not thread-safe; one test at a time.
public final class EmbeddedTransceiver: Transceiver {
  /// One exchange of the script: the command expected, and the answer or failure to give.
  public typealias Step = (command: [UInt8], response: Result<[UInt8], TransceiveError>)
  /// What was left when the test finished.
  public enum LeftOver: Equatable { case clean, unconsumed([[UInt8]]) }

  private var script: ArraySlice<Step>
  /// Every command received, in order.
  public private(set) var received: [[UInt8]] = []
  /// What the link tells the code under test it can carry (frame sizes, raw commands).
  public var capabilities: LinkCapabilities

  /// A transceiver that expects `script`'s commands in order, on a link with `capabilities`.
  public init(_ script: [Step],
              capabilities: LinkCapabilities = .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true)) {
    self.script = script[...]
    self.capabilities = capabilities
  }

  /// Records `command` and gives the next step's answer.
  /// - Throws: the step's failure, or `TransceiveError.unexpectedCommand(_:expected:)` when
  ///   `command` is not the step's or the script is used up.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    received.append(command)
    guard let step = script.popFirst() else { throw .unexpectedCommand(command, expected: nil) }
    guard step.command == command else { throw .unexpectedCommand(command, expected: step.command) }
    return try step.response.get()
  }

  /// `.clean` when every scripted step was used.
  public func finish() -> LeftOver { script.isEmpty ? .clean : .unconsumed(script.map(\.command)) }
}

/// Bytes from a hex string that may contain spaces, colons, newlines and `|` (page marks in
/// transcripts); traps on bad hex (test input only).
public func hex(_ text: String) -> [UInt8] {
  guard let bytes = parseLenientHex(text.utf8.filter { $0 != UInt8(ascii: "|") }) else {
    preconditionFailure("bad hex in test input: \(text)")
  }
  return bytes
}
