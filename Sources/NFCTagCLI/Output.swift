#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered standard output written with write(2) in large blocks.
package final class StandardOutput {
  private var buffer: [UInt8] = []
  private let limit: Int

  package init(bufferSize: Int = 1 << 16) {
    limit = bufferSize
    buffer.reserveCapacity(bufferSize + 4096)
  }

  deinit { flush() }

  package func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= limit { flush() }
  }

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
    bytes.withUnsafeBytes { Self.writeAll($0) }
  }

  package func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { Self.writeAll($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// write(2) to standard output until all of `raw` is out, or the pipe is gone.
  private static func writeAll(_ raw: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < raw.count {
      let n = Glibc.write(1, raw.baseAddress.map { $0 + offset }, raw.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        return  // stdout closed (EPIPE): nothing more can be said
      }
      offset += n
    }
  }
}

/// Reads a whole file descriptor.
package func readAll(fd: Int32) -> [UInt8]? {
  var out: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 {
      if errno == EINTR { continue }
      return nil
    }
    if n == 0 { return out }
    out.append(contentsOf: chunk[0..<n])
  }
}

/// Reads a whole file, or standard input for "-". nil when the file cannot be opened.
package func readInput(_ path: String) -> [UInt8]? {
  if path == "-" { return readAll(fd: 0) }
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  return readAll(fd: fd)
}

/// How messages name an input path: "standard input" for `-`, else the path.
package func inputName(_ path: String) -> String { path == "-" ? "standard input" : path }

/// Reads `path` ("-" for stdin) or fails with exit 66 naming the file.
package func readInputOrFail(_ path: String) throws(CLIFailure) -> [UInt8] {
  guard let bytes = readInput(path) else {
    throw CLIFailure(ExitStatus.noInput, "cannot read \(inputName(path)): \(String(cString: strerror(errno)))")
  }
  return bytes
}
