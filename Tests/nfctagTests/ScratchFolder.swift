import Foundation

/// A folder of its own for one test's files (key files, card images, ledgers, counter stores),
/// removed with the last reference to it: a suite instance holds one, and Swift Testing makes an
/// instance per test.
final class ScratchFolder {
  let url: URL

  /// A new folder in the temporary directory, named `prefix` and a UUID.
  init(_ prefix: String) throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// The path of `name` in the folder.
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// A key file `name` holding `hex` on its first line (as the tool's `--…-key-file` options read
  /// it), and its path.
  func keyFile(_ name: String, _ hex: String) throws -> String {
    try Data((hex + "\n").utf8).write(to: url.appendingPathComponent(name))
    return path(name)
  }
}
