/// Why a virtual tag or an image file could not be set up.
public struct EmulatorError: Error, Hashable, Sendable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
