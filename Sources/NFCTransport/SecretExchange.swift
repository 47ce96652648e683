/// Marks the tag exchanges that carry a secret (a new password or PACK, a Wi-Fi key in a
/// message) so that traces show their headers and mask their data and answers.
///
/// A task-local value: it holds for the code `run` calls, on its thread, and for nothing else.
public enum SecretExchange {
  @TaskLocal static var active = false

  /// True inside ``run(_:)``.
  public static var isActive: Bool { active }

  /// Runs `body` with its exchanges marked secret.
  public static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    let result: Result<T, E> = $active.withValue(true) {
      do throws(E) { return .success(try body()) } catch { return .failure(error) }
    }
    return try result.get()
  }
}
