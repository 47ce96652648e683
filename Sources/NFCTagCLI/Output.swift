import Locking

/// Where a command's bytes go: standard output or standard error, a file descriptor in the
/// program, a buffer in a test (``CapturedOutput``).
package protocol OutputSink: Sendable {
  /// Writes all of `bytes`, or as much as the other end takes (a closed pipe takes nothing).
  func write(_ bytes: UnsafeRawBufferPointer)
}

extension OutputSink {
  /// Writes `text` as UTF-8.
  package func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }
}

/// A file descriptor as a sink: write(2) until everything is out or the other end is gone.
package struct FileDescriptorSink: OutputSink {
  /// The descriptor written (1: standard output, 2: standard error).
  package let fd: Int32

  package init(fd: Int32) { self.fd = fd }

  package func write(_ raw: UnsafeRawBufferPointer) {
    LibC.writeAll(fd, raw)  // false: closed (EPIPE), nothing more can be said
  }
}

/// A sink that keeps what was written, for a command run in a test.
package final class CapturedOutput: OutputSink {
  private let kept = Locked<[UInt8]>([])

  package init() {}

  package func write(_ bytes: UnsafeRawBufferPointer) { kept.withLock { $0.append(contentsOf: bytes) } }

  /// Everything written so far.
  package var bytes: [UInt8] { kept.withLock { $0 } }
  /// Everything written so far, as UTF-8 text.
  package var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A command's standard output, buffered and written to its sink in large blocks.
package final class StandardOutput {
  private var buffer: [UInt8] = []
  private let limit: Int
  private let sink: any OutputSink

  /// - Parameters:
  ///   - sink: where the bytes go (the context's ``CommandContext/output``).
  ///   - bufferSize: bytes kept before they are written.
  package init(_ sink: any OutputSink, bufferSize: Int = 1 << 16) {
    self.sink = sink
    limit = bufferSize
    buffer.reserveCapacity(bufferSize + 4096)
  }

  deinit { flush() }

  /// Appends `text`.
  package func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= limit { flush() }
  }

  /// Appends `bytes`.
  package func write(_ bytes: [UInt8]) {
    buffer.append(contentsOf: bytes)
    if buffer.count >= limit { flush() }
  }

  /// Appends directly into the buffer (the `--lines` hot path).
  package func append(_ body: (inout [UInt8]) -> Void) {
    body(&buffer)
    if buffer.count >= limit { flush() }
  }

  /// Writes what is buffered, then `bytes`, with no copy into the buffer (a block built
  /// elsewhere, such as `ndef decode --lines`' JSON).
  package func writeThrough(_ bytes: [UInt8]) {
    flush()
    bytes.withUnsafeBytes { sink.write($0) }
  }

  /// Writes what is buffered.
  package func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { sink.write($0) }
    buffer.removeAll(keepingCapacity: true)
  }
}

/// Reads a whole file descriptor.
package func readAll(fd: Int32) -> [UInt8]? {
  var out: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = chunk.withUnsafeMutableBytes { LibC.readBytes(fd, into: $0) }
    if n < 0 { return nil }
    if n == 0 { return out }
    out.append(contentsOf: chunk[0..<n])
  }
}

/// Reads a whole file, or for "-" the descriptor `standardInput`. nil when the file cannot be opened.
package func readInput(_ path: String, standardInput: Int32 = 0) -> [UInt8]? {
  if path == "-" { return readAll(fd: standardInput) }
  let fd = LibC.openForReading(path)
  guard fd >= 0 else { return nil }
  defer { LibC.closeFile(fd) }
  return readAll(fd: fd)
}

/// How messages name an input path: "standard input" for `-`, else the path.
package func inputName(_ path: String) -> String { path == "-" ? "standard input" : path }

/// Reads `path` ("-" for the context's standard input) or fails with exit 66 naming the file.
package func readInputOrFail(_ path: String, in context: CommandContext) throws(CLIFailure) -> [UInt8] {
  guard let bytes = readInput(path, standardInput: context.inputDescriptor) else {
    throw CLIFailure(.unreadableFile("cannot read \(inputName(path)): \(LibC.lastErrorText)"))
  }
  return bytes
}
