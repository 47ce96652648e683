import NFCEmulator

/// The virtual tag of a `sim:` reader whose model nfctag does not link (the NTAG 424 DNA's, in
/// NTAG424Emulator with swift-crypto), run by nfctag-provision, which links it: `read`, `info`,
/// `scan`, `dump`, `write`… on `--reader sim:ntag424dna[:IMAGE][@FACE]` then work in nfctag as on
/// any virtual tag, and nfctag stays free of swift-crypto.
///
/// nfctag-provision's hidden `virtual-card` command (`VirtualCardCommand`) holds the tag and its
/// reader face; this card is a socket to it (its standard input and output), one request and
/// one answer at a time in vpcd's framing (``RemoteVirtualCards/frame(_:)``). The other program
/// writes the image file back. It ends when this card closes the socket, or when nfctag ends or
/// dies (the socket closes with it): no process is left behind.
final class RemoteVirtualCard: VirtualCard {
  private let socket: Int32
  private let pid: pid_t
  private var buffer: [UInt8] = []
  /// The ATR the face shows, asked once.
  private(set) var atr: [UInt8] = []

  /// Makes the cards of `sim:` readers of kinds nfctag does not link with this type.
  static func register() {
    RemoteVirtualCards.register { kind, image, face throws(EmulatorError) in
      try RemoteVirtualCard(kind: kind, image: image, face: face)
    }
  }

  /// Starts nfctag-provision's `virtual-card` for a tag of `kind` in `face`.
  /// - Throws: ``EmulatorError``: ``EmulatorError/kindNotLinked(_:)`` when nfctag-provision cannot
  ///   be run (neither next to nfctag nor in `../libexec/nfctag/`), or its tag cannot be made (the
  ///   line is the model's, as nfctag-provision's own commands say it).
  init(kind: VirtualTagKind, image: String?, face: ReaderFaceKind) throws(EmulatorError) {
    var ends: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      throw EmulatorError("cannot start the virtual \(kind.rawValue): \(String(cString: strerror(errno)))")
    }
    var arguments = [HandOver.program, "virtual-card", "--tag", kind.rawValue, "--reader", face.rawValue]
    if let image { arguments += ["--image", image] }
    var started: pid_t? = nil
    for path in HandOver.candidates(executable: HandOver.ownPath()) {
      if let pid = Self.spawn(path, arguments, socket: ends[1]) { started = pid; break }
    }
    close(ends[1])
    guard let started else {
      close(ends[0])
      throw .kindNotLinked(kind)  // 69, as without this card: nfctag-provision is not where nfctag looks
    }
    socket = ends[0]
    pid = started
    guard let ready = request(nil) else { throw EmulatorError("the virtual \(kind.rawValue) (\(HandOver.program)) ended before it was ready") }
    guard ready == [0x00] else { throw EmulatorError(String(decoding: ready.dropFirst(), as: UTF8.self)) }
    atr = request([0x04]) ?? []
  }

  deinit {
    close(socket)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  }

  func powerOn() { _ = request([0x01]) }
  func powerOff() { _ = request([0x00]) }
  func reset() { _ = request([0x02]) }
  /// The face's answer; `6F 00` when the other program is gone (never empty).
  func transmit(_ apdu: [UInt8]) -> [UInt8] {
    guard let answer = request(apdu), !answer.isEmpty else { return [0x6F, 0x00] }
    return answer
  }

  /// Sends `payload` (none: only reads) and returns the next answer; nil when the socket closed.
  private func request(_ payload: [UInt8]?) -> [UInt8]? {
    if let payload {
      let frame = RemoteVirtualCards.frame(payload)
      var offset = 0
      while offset < frame.count {
        let n = frame.withUnsafeBytes { send(socket, $0.baseAddress.map { $0 + offset }, frame.count - offset, Int32(MSG_NOSIGNAL)) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return nil }
        offset += n
      }
    }
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if let answer = RemoteVirtualCards.messages(in: &buffer).first { return answer }
      let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return nil }
      buffer += chunk[0..<n]
    }
  }

  /// Starts `path` with `arguments`, `socket` as its standard input and output; nil when it cannot.
  private static func spawn(_ path: String, _ arguments: [String], socket: Int32) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, socket, 0)
    posix_spawn_file_actions_adddup2(&actions, socket, 1)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, nil, &argv, environ)
    guard result == 0 else { return nil }
    return pid
  }
}
