/// Why a virtual tag or an image file could not be set up.
public struct EmulatorError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of failure, for programs.
  public enum Reason: Hashable, Sendable {
    /// The set-up is wrong or could not be done, as ``EmulatorError/message`` says: a spec, size,
    /// UID or image a model refuses, a face that cannot show the tag, a file that cannot be
    /// written.
    case failed
    /// The kind's model is in a module this program does not link: no factory for it is
    /// registered (``VirtualTagFactories``, ``VirtualTagKind/externalModel``).
    case kindNotLinked(VirtualTagKind)
  }

  /// What kind of failure, for programs.
  public let reason: Reason
  /// What went wrong, as one line: a fact, with no advice.
  public let message: String
  /// The reader face that would take this tag, when the failure is a face that cannot.
  public let workingFace: ReaderFaceKind?

  /// A failure that says `message`; `workingFace` when another reader face would take the tag.
  public init(_ message: String, workingFace: ReaderFaceKind? = nil) {
    self.reason = .failed
    self.message = message
    self.workingFace = workingFace
  }

  private init(reason: Reason, message: String) {
    self.reason = reason
    self.message = message
    self.workingFace = nil
  }

  /// `kind` cannot be built: its model is in a module this program does not link ("the virtual
  /// NTAG 424 DNA is in the NTAG424Emulator module, which this program does not link").
  public static func kindNotLinked(_ kind: VirtualTagKind) -> EmulatorError {
    let model = kind.externalModel ?? VirtualTagKind.ExternalModel(productName: kind.rawValue, module: "NFCEmulator")
    return EmulatorError(reason: .kindNotLinked(kind),
                         message: "the virtual \(model.productName) is in the \(model.module) module, which this program does not link")
  }

  public var description: String { message }
}
