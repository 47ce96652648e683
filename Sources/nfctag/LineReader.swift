/// Lines of a file descriptor, handed out in place: the `ndef decode --lines` input.
///
/// Reads with read(2) into one buffer and finds line ends with memchr. A line is handed to the
/// caller where it lies in the buffer, never copied; what follows the last line end moves to the
/// front before the next read, and the buffer doubles only for a line longer than half of it. So
/// memory stays bounded by the longest line, whatever the input length.
struct LineReader {
  /// The descriptor read (0 for standard input).
  let fd: Int32
  /// The first buffer size; it grows for longer lines.
  var initialCapacity = 1 << 20

  /// Calls `body` with every line, without its line feed; a last line without one counts too.
  ///
  /// - Parameter body: gets each line; the bytes are valid only during the call.
  /// - Returns: false when read(2) failed (the lines before the failure were handed out).
  func forEachLine(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
    var capacity = max(initialCapacity, 16)
    var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    defer { buffer.deallocate() }
    var filled = 0      // bytes in the buffer
    var lineStart = 0   // start of the line not yet handed out
    var scanFrom = 0    // where the search for the next line feed resumes
    while true {
      if capacity - filled < capacity / 2 {
        if lineStart > 0 {  // move the unfinished line to the front
          memmove(buffer, buffer + lineStart, filled - lineStart)
          filled -= lineStart
          scanFrom -= lineStart
          lineStart = 0
        }
        if capacity - filled < capacity / 2 {  // a long line: make room for more of it
          let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
          larger.copyMemory(from: buffer, byteCount: filled)
          buffer.deallocate()
          buffer = larger
          capacity *= 2
        }
      }
      let n = read(fd, buffer + filled, capacity - filled)
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      if n == 0 { break }
      filled += n
      while scanFrom < filled, let found = memchr(buffer + scanFrom, 0x0A, filled - scanFrom) {
        let end = buffer.distance(to: found)
        body(UnsafeRawBufferPointer(start: buffer + lineStart, count: end - lineStart))
        lineStart = end + 1
        scanFrom = lineStart
      }
      scanFrom = filled
    }
    if lineStart < filled {
      body(UnsafeRawBufferPointer(start: buffer + lineStart, count: filled - lineStart))
    }
    return true
  }
}
