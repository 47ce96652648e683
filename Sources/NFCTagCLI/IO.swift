#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `text` to standard error, unbuffered.
package func writeStderr(_ text: String) {
  var text = text
  text.withUTF8 { buffer in
    _ = write(2, buffer.baseAddress, buffer.count)
  }
}
