/// A memory image file: the raw memory in address order. Written back atomically (temporary file,
/// then rename) whenever the tag's memory changed, in the form it was loaded in: a short form that
/// is the start of the whole image (a FeliCa Lite-S's 14 user blocks) stays short. The images of
/// the Type 4 tag and the NTAG 424 DNA end with the UID; one of their first layout, without it,
/// is written back whole, with the UID the tag was loaded with.
///
/// An NTAG 424 DNA's image (`ntag424dna`, `NTAG424DNAVirtualTag` in NTAG424Emulator) holds its five AES keys in
/// clear, with the key versions, file settings and counters: image files are test material, never
/// a place for production keys.
public final class ImageFile {
  /// The file's path, as given.
  public let path: String
  private var savedGeneration: Int
  /// The length of a short-form image file: only this much of the memory image is written.
  private var keptLength: Int? = nil

  /// Loads the tag from `path`, or creates the file with the tag's factory content.
  public static func open(path: String, kind: VirtualTagKind, uid: [UInt8]?) throws(EmulatorError) -> (ImageFile, any VirtualTag) {
    if let bytes = readFile(path) {
      let tag = try kind.makeTag(image: bytes, uid: uid)
      let file = ImageFile(path: path, generation: tag.memoryGeneration)
      let whole = tag.memoryImage
      if !kind.imageEndsWithUID, bytes.count < whole.count, whole.starts(with: bytes) { file.keptLength = bytes.count }
      return (file, tag)
    }
    let tag = try kind.makeTag(uid: uid)
    let file = ImageFile(path: path, generation: -1)
    try file.save(tag)
    return (file, tag)
  }

  private init(path: String, generation: Int) {
    self.path = path
    self.savedGeneration = generation
  }

  /// Writes the image when the memory changed since the last save.
  public func saveIfChanged(_ tag: any VirtualTag) throws(EmulatorError) {
    if tag.memoryGeneration != savedGeneration { try save(tag) }
  }

  func save(_ tag: any VirtualTag) throws(EmulatorError) {
    try Self.write(Array(tag.memoryImage.prefix(keptLength ?? .max)), to: path)
    savedGeneration = tag.memoryGeneration
  }

  /// Writes `image` to `path` atomically: a temporary file beside it, fsync, then rename.
  public static func write(_ image: [UInt8], to path: String) throws(EmulatorError) {
    let temporary = path + ".tmp"
    let fd = LibC.createFile(temporary)
    guard fd >= 0 else { throw EmulatorError("cannot write \(temporary): \(LibC.lastErrorText)") }
    var offset = 0
    let ok = image.withUnsafeBytes { raw -> Bool in
      while offset < raw.count {
        let n = LibC.writeBytes(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
    LibC.syncAndClose(fd)
    guard ok, LibC.renameFile(temporary, to: path) else { throw EmulatorError("cannot write \(path): \(LibC.lastErrorText)") }
  }

  static func readFile(_ path: String) -> [UInt8]? {
    let fd = LibC.openForReading(path)
    guard fd >= 0 else { return nil }
    defer { LibC.closeFile(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { LibC.readBytes(fd, into: $0) }
      if n <= 0 { break }
      out += chunk[0..<n]
      if out.count > 1 << 20 { break }  // no tag has a megabyte
    }
    return out
  }
}

extension VirtualTagKind {
  /// Whether the kind's image ends with the UID, which an image of its first layout lacks (so
  /// that shorter image is not a short form to keep).
  fileprivate var imageEndsWithUID: Bool { self == .type4 || self == .ntag424dna }
}
