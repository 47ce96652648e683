/// Reports how far a long tag operation has come (a write, a memory dump, a lock): bytes done
/// out of a total, to a hook that a program installs around the operation.
///
/// A task-local value, like ``SecretExchange``: it holds for the code ``observe(_:_:)`` calls, on
/// its thread, and for nothing else, so two sessions on two threads never see each other's
/// progress. The platforms' read and write loops report through a ``TransferProgress/Counter``;
/// without a hook reporting costs one task-local read.
public enum TransferProgress {
  /// What an operation moves.
  public enum Direction: Sendable, Hashable {
    /// Bytes written to the tag.
    case writing
    /// Bytes read from the tag.
    case reading
  }

  /// One report: `done` of `total` bytes, in `direction`.
  public typealias Hook = @Sendable (_ direction: Direction, _ done: Int, _ total: Int) -> Void

  @TaskLocal static var hook: Hook?

  /// True inside ``observe(_:_:)``: a loop may skip working out its total otherwise.
  public static var isObserved: Bool { hook != nil }

  /// Runs `body` with `hook` receiving every report its operations make.
  public static func observe<T, E: Error>(_ hook: @escaping Hook, _ body: () throws(E) -> T) throws(E) -> T {
    let result: Result<T, E> = $hook.withValue(hook) {
      do throws(E) { return .success(try body()) } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// Counts the bytes of one operation and reports each step to the installed hook, if any.
  public struct Counter {
    /// Whether the operation writes or reads.
    public let direction: Direction
    /// Bytes the whole operation moves.
    public let total: Int
    /// Bytes moved so far.
    public private(set) var done = 0

    /// A counter for an operation that moves `total` bytes; nothing is reported yet.
    public init(_ direction: Direction, total: Int) {
      self.direction = direction
      self.total = max(0, total)
    }

    /// `bytes` more are done (never past the total); the hook hears the new count.
    public mutating func advance(by bytes: Int) {
      guard bytes > 0 else { return }
      done = min(total, done + bytes)
      TransferProgress.hook?(direction, done, total)
    }
  }
}
