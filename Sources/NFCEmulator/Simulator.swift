import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The virtual tag kinds, by the names the command line uses. One table, so new models add a row;
/// each model's factory lives beside it (Type1/, Type2/, …).
public enum VirtualTagKind: String, CaseIterable, Sendable {
  case topaz96, topaz512
  case ntag213, ntag215, ntag216, ultralight
  case ultralightEV1 = "ultralight-ev1"
  case felicaLiteS = "felica-lite-s"
  case type4
  case icodeSLIX2 = "icode-slix2"

  /// A tag with factory content.
  public func makeTag(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
    switch self {
    case .topaz96: return try Type1VirtualTag(chip: .topaz96, uid: uid)
    case .topaz512: return try Type1VirtualTag(chip: .topaz512, uid: uid)
    case .ntag213: return try Type2VirtualTag(chip: .ntag213, uid: uid)
    case .ntag215: return try Type2VirtualTag(chip: .ntag215, uid: uid)
    case .ntag216: return try Type2VirtualTag(chip: .ntag216, uid: uid)
    case .ultralight: return try Type2VirtualTag(chip: .ultralight, uid: uid)
    case .ultralightEV1: return try Type2VirtualTag(chip: .ultralightEV1, uid: uid)
    case .felicaLiteS: return try makeFeliCaLiteS(uid: uid)
    case .type4: return try makeType4Tag(uid: uid)
    case .icodeSLIX2: return try makeICODESLIX2(uid: uid)
    }
  }

  /// A tag from a memory image (the raw memory in address order). `uid` names the tag when the
  /// image does not hold its UID (Type 4 files, Type 5 blocks); Types 1–3 keep theirs in memory,
  /// so the image's wins there.
  public func makeTag(image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) -> any VirtualTag {
    switch self {
    case .topaz96: return try Type1VirtualTag(chip: .topaz96, image: image)
    case .topaz512: return try Type1VirtualTag(chip: .topaz512, image: image)
    case .ntag213: return try Type2VirtualTag(chip: .ntag213, image: image)
    case .ntag215: return try Type2VirtualTag(chip: .ntag215, image: image)
    case .ntag216: return try Type2VirtualTag(chip: .ntag216, image: image)
    case .ultralight: return try Type2VirtualTag(chip: .ultralight, image: image)
    case .ultralightEV1: return try Type2VirtualTag(chip: .ultralightEV1, image: image)
    case .felicaLiteS: return try makeFeliCaLiteS(image: image, uid: uid)
    case .type4: return try Type4VirtualTag(image: image, uid: uid)
    case .icodeSLIX2: return try ICODESLIX2VirtualTag(image: image, uid: uid)
    }
  }

  /// The reader face a tag of this kind is shown in when none is named: the ACR122U, except for
  /// ISO 15693 tags, which it cannot read.
  public var defaultFace: ReaderFaceKind { self == .icodeSLIX2 ? .part3 : .acr122u }

  /// "ntag213|ntag215|…" for help texts.
  public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// The reader faces the emulator can show a virtual tag in.
public enum ReaderFaceKind: String, CaseIterable, Sendable {
  /// An ACS ACR122U (a PN532 behind pseudo-APDUs): Types 1–4, no ISO 15693.
  case acr122u
  /// A generic PC/SC Part 3 reader with ISO 15693 (ACR1552U-like): Types 2, 4 and 5.
  case part3

  /// The face with `tag` in its field.
  /// - Throws: ``EmulatorError`` when this reader cannot talk to that kind of tag.
  public func makeFace(tag: any VirtualTag) throws(EmulatorError) -> any VirtualCard {
    switch self {
    case .acr122u:
      guard tag.platform != .type5 else {
        throw EmulatorError("the ACR122U cannot read ISO 15693 (Type 5) tags", workingFace: .part3)
      }
      return ACR122UFace(tag: tag)
    case .part3:
      return try PartThreeFace(tag: tag)
    }
  }

  /// The PC/SC name the in-process simulator gives this reader.
  public var simulatedReaderName: String {
    switch self {
    case .acr122u: return "ACS ACR122U PICC Interface"
    case .part3: return "ACS ACR1552 1S CL Reader PICC"
    }
  }

  /// "acr122u|part3" for help texts.
  public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// A memory image file: the raw memory in address order. Written back atomically (temporary file,
/// then rename) whenever the tag's memory changed, in the form it was loaded in: a short form that
/// is the start of the whole image (a FeliCa Lite-S's 14 user blocks) stays short.
public final class ImageFile {
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
      if bytes.count < whole.count, whole.starts(with: bytes) { file.keptLength = bytes.count }
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
    let temporary = path + ".tmp"
    let image = Array(tag.memoryImage.prefix(keptLength ?? .max))
    let fd = openFile(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw EmulatorError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
    var offset = 0
    let ok = image.withUnsafeBytes { raw -> Bool in
      while offset < raw.count {
        let n = writeFile(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
    fsync(fd)
    close(fd)
    guard ok, rename(temporary, path) == 0 else { throw EmulatorError("cannot write \(path): \(String(cString: strerror(errno)))") }
    savedGeneration = tag.memoryGeneration
  }

  static func readFile(_ path: String) -> [UInt8]? {
    let fd = openFile(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      out += chunk[0..<n]
      if out.count > 1 << 20 { break }  // no tag has a megabyte
    }
    return out
  }
}

/// Per-command delay of a simulated reader.
public enum LatencyModel: String, CaseIterable, Sendable {
  /// No delay.
  case none
  /// An ACR122U over USB: about 1.5 ms per exchange plus 0.1 ms per byte moved (UART to the
  /// PN532 at 115200 baud, and the RF exchange at 106 kbit/s).
  case acr122u

  /// Microseconds to wait for one exchange.
  public func delay(command: Int, response: Int) -> UInt32 {
    switch self {
    case .none: return 0
    case .acr122u: return UInt32(1500 + 100 * (command + response))
    }
  }
}

/// A reader slot in process: a ``VirtualCard`` plus removal and latency for fault injection.
/// The simulator's `APDUTransport`: only this layer differs from a PC/SC card handle.
public final class SimulatedAPDUTransport: APDUTransport {
  public let readerName: String
  public let card: any VirtualCard
  public let removeAfter: Int?
  public let latency: LatencyModel
  public private(set) var answered = 0
  public private(set) var isRemoved = false
  private let afterCommand: (() -> Void)?

  /// - Parameters:
  ///   - removeAfter: the tag leaves after answering this many APDUs.
  ///   - afterCommand: runs after every APDU (image persistence).
  public init(readerName: String = "ACS ACR122U PICC Interface 00 00", card: any VirtualCard,
              removeAfter: Int? = nil, latency: LatencyModel = .none, afterCommand: (() -> Void)? = nil) {
    self.readerName = readerName
    self.card = card
    self.removeAfter = removeAfter
    self.latency = latency
    self.afterCommand = afterCommand
  }

  public var atr: [UInt8] { card.atr }

  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !isRemoved else { throw .tagRemoved }
    let reply = card.transmit(apdu)
    let wait = latency.delay(command: apdu.count, response: reply.count)
    if wait > 0 { usleep(wait) }
    answered += 1
    afterCommand?()
    if let removeAfter, answered >= removeAfter { isRemoved = true }
    return reply
  }
}

/// `sim:KIND[@FACE][:IMAGE]` as given to `--reader`: the tag kind, the reader face (the kind's
/// default when not named) and an optional image file.
public struct SimulatorSpec: Sendable {
  public var kind: VirtualTagKind
  public var face: ReaderFaceKind
  public var imagePath: String?

  public init(parsing text: String) throws(EmulatorError) {
    var rest = Substring(text)
    guard rest.hasPrefix("sim:") else { throw EmulatorError("a simulator reader is sim:KIND[@FACE][:IMAGE]") }
    rest = rest.dropFirst(4)
    let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let head = (parts.first ?? "").split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
    guard let name = head.first, let kind = VirtualTagKind(rawValue: String(name)) else {
      throw EmulatorError("unknown tag kind in '\(text)': use one of \(VirtualTagKind.names)")
    }
    self.kind = kind
    if head.count > 1 {
      guard let face = ReaderFaceKind(rawValue: String(head[1])) else {
        throw EmulatorError("unknown reader face in '\(text)': use one of \(ReaderFaceKind.names)")
      }
      self.face = face
    } else {
      face = kind.defaultFace
    }
    imagePath = parts.count > 1 && !parts[1].isEmpty ? String(parts[1]) : nil
  }
}

// `ImageFile.open(path:kind:uid:)` hides the C function inside the type, so these file-level
// forwarders name the C calls without a module prefix (Glibc on Linux, Darwin on macOS).
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }
private func writeFile(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }
