// libpq's password file (~/.pgpass, PGPASSFILE).

/// libpq's password file: one `hostname:port:database:username:password` a line, `*` matching
/// anything in the first four fields, `\:` and `\\` for a colon or a backslash, `#` starting a
/// comment line; the first matching line wins. A host that is a unix socket directory also matches
/// `localhost`.
///
/// As libpq, a file that group or others may access (mode not 0600 or stricter), that is not a
/// regular file, or that does not exist is not used; the reason is kept as a note, so that a
/// refused login can say why no password was sent.
public enum PostgresPassFile {
  /// The largest file read; a password file is a few lines.
  public static let maximumSize = 1 << 20

  /// The password for these settings in the file at `path`, and notes on a file not used.
  /// `explicit`: the path came from `PGPASSFILE` (a missing file is then worth a note).
  public static func lookup(path: String, host: String, port: Int, database: String, user: String,
                            explicit: Bool) -> (password: String?, notes: [String]) {
    let descriptor = LibC.openForReading(path)
    guard descriptor >= 0 else {
      return (nil, explicit ? ["password file \(path) cannot be opened (errno \(LibC.lastError))"] : [])
    }
    defer { LibC.closeFile(descriptor) }
    guard let info = LibC.fileStatus(descriptor), info.isRegular else {
      return (nil, ["password file \(path) is not a regular file: not used"])
    }
    guard !info.groupOrOthersHaveAccess else {
      return (nil, ["password file \(path) has group or world access: not used (its mode must be 0600 or stricter)"])
    }
    guard info.size <= maximumSize else {
      return (nil, ["password file \(path) is larger than \(maximumSize) bytes: not used"])
    }
    var bytes = [UInt8](repeating: 0, count: info.size)
    var filled = 0
    while filled < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer -> Int in
        LibC.readBytes(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      }
      guard count > 0 else { break }
      filled += count
    }
    let text = String(decoding: bytes[..<filled], as: UTF8.self)
    return (password(in: text, host: host, port: port, database: database, user: user), [])
  }

  /// The password of the first line of `text` that matches.
  public static func password(in text: String, host: String, port: Int, database: String, user: String) -> String? {
    let hosts = host.hasPrefix("/") ? [host, "localhost"] : [host]
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
      if line.hasPrefix("#") { continue }
      let fields = self.fields(line)
      guard fields.count == 5 else { continue }
      func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
      if matches(fields[0], hosts), matches(fields[1], [String(port)]), matches(fields[2], [database]),
         matches(fields[3], [user]) {
        return fields[4]
      }
    }
    return nil
  }

  /// The colon-separated fields of a line, `\` escaping the next character. The fifth field (the
  /// password) runs to the end of the line: libpq stops splitting there.
  static func fields(_ line: Substring) -> [String] {
    var fields: [String] = []
    var current = ""
    var escaped = false
    for character in line {
      if escaped {
        current.append(character); escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == ":" && fields.count < 4 {
        fields.append(current); current = ""
      } else {
        current.append(character)
      }
    }
    fields.append(current)
    return fields
  }
}
