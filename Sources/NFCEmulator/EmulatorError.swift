/// Why a virtual tag or an image file could not be set up.
public struct EmulatorError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as one line.
  public let message: String
  /// The reader face that would take this tag, when the failure is a face that cannot.
  public let workingFace: ReaderFaceKind?
  /// A failure that says `message`; `workingFace` when another reader face would take the tag.
  public init(_ message: String, workingFace: ReaderFaceKind? = nil) {
    self.message = message
    self.workingFace = workingFace
  }
  public var description: String { message }
}
