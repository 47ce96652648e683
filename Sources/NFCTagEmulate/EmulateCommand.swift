import ArgumentParser
import Dispatch
import Locking
import NFCTagCLI
import NFCEmulator
import NFCEmulatorVPCD
import NFCTransport

extension LatencyModel: ExpressibleByArgument {}
extension ReaderFaceKind: ExpressibleByArgument {}

/// `nfctag emulate`: a virtual tag in a virtual reader (ACR122U or Part 3), shown to pcscd through vpcd.
///
/// Both programs link this command and run the same code. A kind whose model the running program
/// does not link (``VirtualTagFactories``: the NTAG 424 DNA, whose model needs swift-crypto, in
/// `nfctag`) is the one reason to hand the command over: ``run(in:)`` decides it once, before
/// anything is started (no vpcd connection, no image file), and `nfctag` then `exec`s
/// nfctag-provision with the same command line, which registers the 424 DNA and runs
/// ``perform(in:)``.
package struct EmulateCommand: ToolCommand {
  package static let configuration = CommandConfiguration(
    commandName: "emulate",
    abstract: "Show a virtual tag to pcscd (and every PC/SC program) through the vsmartcard vpcd driver.",
    discussion: """
      The tag appears in "Virtual PCD 00 00" (port 35963) or "Virtual PCD 00 01" (35964). Ctrl-C \
      removes it and exits 0. With --remove-after N the tag leaves after answering N commands (the \
      image keeps what was written until then) and the command exits 0. \
      With --feed N, N factory-fresh tags come one after another, with distinct UIDs chosen by \
      --seed (feeds with different seeds never share one). Each tag leaves right after the host \
      switched the ACR122U LED or buzzer, or once the host sent nothing for --hand-ms ms after its \
      first command (a tag nobody talked to stays); its final memory is saved as \
      DIR/NNNN-UID.bin (the --image format) before the next one comes. With several kinds \
      (--tag ntag213,ntag213-locked,ntag210) tag i is the ((i-1) mod count)th. The command exits 0 \
      when the last tag has left; Ctrl-C stops early and saves the tag in the field. \
      --fault KIND@N (repeatable; fault injection for tests, faults.md in the documentation folder) spoils the Nth \
      command (counted as --remove-after counts): garbage (the tag runs it, the answer is \
      replaced by meaningless bytes), status (the reader answers 6F 00; the tag never sees it), \
      nak (the tag refuses it: NAK 0), slow[:SECONDS] (the answer comes SECONDS late, 10 by \
      default), drop (the connection to vpcd closes instead of an answer, as a reader unplugged \
      mid-command; the command exits 0 then).
      """)
  @Option(help: "The tag: \(VirtualTagKind.names); with --feed, several separated by commas, in turn.") package var tag: String
  @Option(help: "The UID as hex (7 bytes for Types 1, 2 and 4, 8 for Types 3 (IDm) and 5); an existing Type 1, 2 or 3 image keeps its own.") package var uid: HexBytes?
  @Option(help: "A memory image file: loaded if it exists, created with factory content if not; writes persist to it.")
  package var image: String?
  @Option(help: "Where vpcd listens, HOST:PORT.") package var vpcd: String = "127.0.0.1:35963"
  // .unconditional: the word after a number option is its value, so that a negative number
  // reaches the option's check (a range error, 64) rather than "Missing value".
  @Option(parsing: .unconditional, help: "Remove the tag after it has answered N commands (fault injection).") package var removeAfter: Int?
  @Option(help: ArgumentHelp("Spoil the Nth command: \(InjectedFault.kinds) (repeatable; see below).", valueName: "KIND@N"))
  package var fault: [String] = []
  @Option(help: "Per-command delay: none or acr122u.") package var latency: LatencyModel = .none
  @Option(help: "The reader face: \(ReaderFaceKind.names) (acr122u by default, acr1552u for ISO 15693 tags; part3 is acr1552u).")
  package var reader: ReaderFaceKind?
  @Option(parsing: .unconditional, help: "Present N tags one after another (a tag feeder for tests).") package var feed: Int?
  @Option(help: "With --feed: save each tag's final memory as DIR/NNNN-UID.bin.") package var imageDir: String?
  @Option(parsing: .unconditional, help: "With --feed: picks the tags' UIDs (0 by default).") package var seed: UInt64?
  @Option(parsing: .unconditional, help: "With --feed: a tag leaves after MS ms without a command (300 by default).") package var handMs: Int?
  @Flag(help: "With --feed: no line per tag.") package var quiet = false
  @Flag(help: "With --feed of desfire kinds: every card comes with its random ID on (08 and 3 random bytes at each activation).")
  package var randomUID = false

  package init() {}

  /// The kinds --tag names, in order.
  package var kinds: [VirtualTagKind] { tag.split(separator: ",").compactMap { VirtualTagKind(rawValue: String($0)) } }

  /// The faults --fault names.
  package var faults: [InjectedFault] { fault.compactMap { InjectedFault(parsing: $0) } }

  package func validate() throws {
    if feed != nil, !fault.isEmpty { throw ValidationError("--fault does not go with --feed.") }
    if feed != nil { return try validateFeed() }
    for text in fault where InjectedFault(parsing: text) == nil {
      throw ValidationError("--fault takes KIND@N with KIND \(InjectedFault.kinds) and N from 1, not '\(text)'.")
    }
    if tag.contains(",") { throw ValidationError("several tag kinds need --feed N.") }
    if let option = [imageDir.map { _ in "--image-dir" }, seed.map { _ in "--seed" }, handMs.map { _ in "--hand-ms" },
                     quiet ? "--quiet" : nil, randomUID ? "--random-uid" : nil].compactMap({ $0 }).first {
      throw ValidationError("\(option) goes with --feed N.")
    }
    guard VirtualTagKind(rawValue: tag) != nil else { throw ValidationError("unknown tag '\(tag)': use one of \(VirtualTagKind.names).") }
    if let removeAfter, removeAfter < 1 { throw ValidationError("--remove-after must be at least 1.") }
    guard parseEndpoint(vpcd) != nil else { throw ValidationError("--vpcd takes HOST:PORT, for example 127.0.0.1:35963.") }
    if let uid {
      // The tag model knows its UID length: a wrong one is a wrong command line (64), not bad data.
      // A kind this program does not link cannot check it: `run` refuses the kind itself.
      if let kind = VirtualTagKind(rawValue: tag) {
        do { _ = try kind.makeTag(uid: uid.bytes) } catch where error.reason == .failed {
          throw ValidationError("--uid: \(error.message)")
        } catch {}
      }
    }
  }

  /// The kinds --tag names that this program cannot build (``VirtualTagFactories/canMake(_:)``):
  /// in `nfctag`, `ntag424dna`; none in nfctag-provision, which registers it.
  package var kindsNotLinked: [VirtualTagKind] { kinds.filter { !VirtualTagFactories.shared.canMake($0) } }

  /// Runs the command here, or, when a kind it names is not linked into this program, dispatches
  /// it to the program that has it (``CommandContext/dispatch(_:)``: nfctag hands it over, `exec`s
  /// nfctag-provision). The one place that decides, before anything is started.
  package func run(in context: CommandContext) throws {
    if !kindsNotLinked.isEmpty { return try context.dispatch(self) }
    try perform(in: context)
  }

  /// Shows the tag (or the feed) to pcscd through vpcd until it leaves or Ctrl-C: the work
  /// itself, in whichever program runs it. A kind not linked here ends with one line and 69.
  /// The steps: the tag (``openTag(_:image:uid:)``), the reader face in front of it
  /// (``makeFace(_:showing:faults:in:)``), then the bridge to vpcd until the tag leaves.
  package func perform(in context: CommandContext) throws {
    if feed != nil { return try runFeed(in: context) }
    guard let kind = VirtualTagKind(rawValue: tag), let (host, port) = parseEndpoint(vpcd) else { throw ExitCode(ExitStatus.usage) }
    let (virtualTag, imageFile) = try Self.openTag(kind, image: image, uid: uid?.bytes)
    let faults = faults
    let face = try Self.makeFace(reader ?? kind.defaultFace, showing: virtualTag, faults: faults, in: context)
    let banner = "nfctag: emulating \(virtualTag.productName) (UID \(hexString(virtualTag.shownIdentifier)))"
      + " \(readerPhrase(preposition: "in", host: host, port: port)); Ctrl-C to stop\n"
    // The bridge owns the face, the tag and the image file from here on (they are sent to it).
    let served = VPCDServedCard(card: face) {
      do { try imageFile?.saveIfChanged(virtualTag) } catch { context.errors.write("nfctag: \(error)\n") }
    }
    let dropAt = faults.filter { $0.kind == .drop }.map(\.apdu).min()
    let bridge = VPCDBridge(serving: served, host: host, port: port, removeAfter: removeAfter, dropAt: dropAt, latency: latency)
    let interrupt = context.interrupts.listen { bridge.stop() }
    defer { interrupt.stop() }
    let end = try bridge.run(firstConnectTimeout: 5) { context.errors.write(banner) }
    if case .removedAfterCommands(let n) = end { context.errors.write("nfctag: tag removed after \(n) commands\n") }
    if case .droppedAt(let n) = end { context.errors.write("nfctag: fault drop@\(n) injected: connection to vpcd closed\n") }
  }

  /// The tag: `--image` loaded (or created with factory content), or a new tag of `kind`.
  static func openTag(_ kind: VirtualTagKind, image: String?, uid: [UInt8]?) throws -> (tag: any VirtualTag, file: ImageFile?) {
    do {
      if let image {
        let (file, loaded) = try ImageFile.open(path: image, kind: kind, uid: uid)
        return (loaded, file)
      }
      return (try kind.makeTag(uid: uid), nil)
    } catch {
      throw cliFailure(for: error, otherwise: .malformedInput(error.description))
    }
  }

  /// The reader face `face` in front of `virtualTag`, with `--fault`'s faults (but `drop`, which
  /// the bridge injects) between them.
  static func makeFace(_ face: ReaderFaceKind, showing virtualTag: any VirtualTag, faults: [InjectedFault],
                       in context: CommandContext) throws -> any VirtualCard {
    let refusing = faults.contains { $0.kind == .nak } ? FaultInjectingTag(virtualTag) : nil
    do {
      let card = try face.makeFace(tag: refusing ?? virtualTag)
      guard faults.contains(where: { $0.kind != .drop }) else { return card }
      let faulty = FaultyCard(card, tag: refusing, faults: faults)
      faulty.onInject = { context.errors.write("nfctag: fault \($0) injected\n") }
      return faulty
    } catch {
      throw CLIFailure(.invalidValue(error.description + (error.workingFace.map { ": use --reader \($0.rawValue)" } ?? "")))
    }
  }
}

func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }

/// Where the start line says the tag is: "in READER via HOST:PORT", or "via HOST:PORT" when the
/// reader's name is not known here (`preposition` is "in" or "to").
func readerPhrase(preposition: String, host: String, port: UInt16) -> String {
  let conf = readInput(nfctagReaderConf).map { String(decoding: $0, as: UTF8.self) }
  let endpoint = "via \(host):\(port)"
  return readerName(host: host, port: port, readerConf: conf).map { "\(preposition) \($0) \(endpoint)" } ?? endpoint
}

/// The readers `make pcscd` gives nfctag's own pcsc-lite driver (docs/ifd-handler.md).
let nfctagReaderConf = "/etc/reader.conf.d/nfctag"

/// The name pcscd gives the reader `--vpcd HOST:PORT` serves, when it is known: vpcd's two
/// ("Virtual PCD 00 00" on 35963, "… 00 01" on 35964, its `reader.conf.d/vpcd`), or on this
/// machine the entry of `readerConf` (nfctag's driver's reader.conf) whose DEVICENAME ends in
/// `:PORT`, which pcscd names "FRIENDLYNAME NN 00", NN (hex) counting the driver's readers in
/// the file's order (pcsc-lite's `RFSetReaderName`, readerfactory.c: docs/ifd-handler.md).
func readerName(host: String, port: UInt16, readerConf: String?) -> String? {
  if port == 35963 || port == 35964 { return "Virtual PCD 00 \(format2(Int(port) - 35963))" }
  guard ["127.0.0.1", "localhost", "::1"].contains(host), let readerConf else { return nil }
  var friendlyName: Substring?
  var readers = 0
  for line in readerConf.split(whereSeparator: \.isNewline) {
    let words = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
    guard words.count == 2, let value = words.last?.trimmingQuotesAndBlanks else { continue }
    if words.first == "FRIENDLYNAME" { friendlyName = value }
    guard words.first == "DEVICENAME" else { continue }
    defer { readers += 1 }
    if let colon = value.lastIndex(of: ":"), UInt16(value[value.index(after: colon)...]) == port, let friendlyName, readers < 256 {
      let number = String(readers, radix: 16, uppercase: true)
      return "\(friendlyName) \(number.count < 2 ? "0" + number : number) 00"
    }
  }
  return nil
}

extension Substring {
  /// The value without the blanks and quotes around it (`"ACS ACR122U PICC Interface"`).
  fileprivate var trimmingQuotesAndBlanks: Substring {
    let kept: (Character) -> Bool = { $0 != " " && $0 != "\t" && $0 != "\"" }
    guard let first = firstIndex(where: kept), let last = lastIndex(where: kept) else { return "" }
    return self[first...last]
  }
}

func parseEndpoint(_ text: String) -> (String, UInt16)? {
  guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
  let host = String(text[..<colon])
  return host.isEmpty ? nil : (host, port)
}

extension VPCDBridgeError: MappedFailure {
  /// `emulate` cannot reach vpcd or its slot is taken: 69, with what to do.
  package var cliFailure: CLIFailure {
    let advice: String
    switch reason {
    case .unreachable: advice = ": is pcscd running with vsmartcard-vpcd? (`make pcscd` in the source tree starts it)"
    case .slotInUse: advice = " (a second `nfctag emulate`?): stop that one or pick another --vpcd port"
    }
    return CLIFailure(.serviceUnavailable(message + advice))
  }
}
