/// An in-process simulated reader as given to `--reader`:
///
/// ```
/// sim:KIND[@FACE][:IMAGE]
/// sim:KIND[/KIND…][@FACE]+OPTION[,OPTION…]
/// ```
///
/// `KIND` is a ``VirtualTagKind`` name, `FACE` a ``ReaderFaceKind`` (`acr122u`, `acr1252u`,
/// `acr1552u`, `utrust3700f`, `omnikey5022`, `omnikey5422`, `scl3711`, or `part3` for `acr1552u`;
/// the kinds' default when not named), `IMAGE` a memory image file for the one tag. A face that
/// does not read the kind is refused when the reader is opened, naming one that does. Options,
/// after `+`:
///
/// - `feed=N`: a tag feeder, N factory-fresh tags one after another (``TagFeeder``); with several
///   kinds, tag i is `kinds[(i − 1) % count]`. After the last tag the reader reports no tag.
/// - `seed=S`: the feed's UIDs (``FeederUIDs``), 0 by default.
/// - `images=DIR`: each fed tag's final memory is saved as `DIR/NNNN-UID.bin`.
/// - `hand-ms=MS`: a fed tag leaves MS ms after the last command (300 by default), or right after
///   the ACR122U LED and buzzer command.
/// - `latency=none|acr122u`: the ``LatencyModel`` (none by default).
/// - `image=PATH`: the one tag's image file, as `:IMAGE` (not with `feed`).
///
/// Everything after `+` belongs to the options, so an option value may hold `:` but not `,`.
/// Example: `sim:ntag213/ntag213-locked/ntag210+feed=30,seed=2,images=/tmp/feed,latency=acr122u`.
public struct SimulatorSpec: Sendable {
  /// The first (or only) kind.
  public var kind: VirtualTagKind
  /// Every kind, in feed order (just ``kind`` without a feed).
  public var kinds: [VirtualTagKind]
  /// The reader face (`@FACE`; the kind's default without it).
  public var face: ReaderFaceKind
  /// The one tag's image file (`:IMAGE` or `image=PATH`), loaded and written back.
  public var imagePath: String?
  /// The reader latency to model (`latency=`).
  public var latency: LatencyModel = .none
  /// The feed, when `feed=N` was given.
  public var feed: FeedSettings?

  /// The two forms, for help and error messages (ASCII: the man page keeps nothing else).
  public static let grammar = "sim:KIND[@FACE][:IMAGE] or sim:KIND[/KIND...][@FACE]+feed=N[,OPTION...] "
    + "(OPTION: seed=S, images=DIR, hand-ms=MS, latency=none|acr122u, uid=random)"

  /// Parses a `--reader sim:…` value.
  /// - Throws: ``EmulatorError`` naming the part that is wrong, with ``grammar``.
  public init(parsing text: String) throws(EmulatorError) {
    guard text.hasPrefix("sim:") else { throw EmulatorError("a simulator reader is \(Self.grammar)") }
    let body = text.dropFirst(4)
    let cut = body.firstIndex { $0 == "+" || $0 == ":" }
    let head = body[..<(cut ?? body.endIndex)]
    var options: Substring? = nil
    if let cut {
      let rest = body[body.index(after: cut)...]
      if body[cut] == ":" { imagePath = rest.isEmpty ? nil : String(rest) } else { options = rest }
    }
    let nameAndFace = head.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
    var kinds: [VirtualTagKind] = []
    for name in (nameAndFace.first ?? "").split(separator: "/", omittingEmptySubsequences: false) {
      guard let kind = VirtualTagKind(rawValue: String(name)) else {
        throw EmulatorError("unknown tag kind '\(name)' in '\(text)': use one of \(VirtualTagKind.names)")
      }
      kinds.append(kind)
    }
    guard let first = kinds.first else { throw EmulatorError("no tag kind in '\(text)': use one of \(VirtualTagKind.names)") }
    self.kind = first
    self.kinds = kinds
    if nameAndFace.count > 1 {
      guard let face = ReaderFaceKind(rawValue: String(nameAndFace[1])) else {
        throw EmulatorError("unknown reader face in '\(text)': use one of \(ReaderFaceKind.names)")
      }
      self.face = face
    } else {
      face = kinds.allSatisfy { $0.defaultFace == first.defaultFace } ? first.defaultFace : .acr122u
    }
    if let options { try apply(options, in: text) }
    if feed == nil, kinds.count > 1 { throw EmulatorError("several tag kinds in '\(text)' need feed=N") }
  }

  /// Reads the `+` options.
  private mutating func apply(_ options: Substring, in text: String) throws(EmulatorError) {
    var values: [String: String] = [:]
    for option in options.split(separator: ",", omittingEmptySubsequences: true) {
      let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pair.count == 2, let key = pair.first, !pair[1].isEmpty else {
        throw EmulatorError("option '\(option)' in '\(text)' is not NAME=VALUE")
      }
      guard ["feed", "seed", "images", "hand-ms", "latency", "image", "uid"].contains(String(key)) else {
        throw EmulatorError("unknown option '\(key)' in '\(text)': use feed, seed, images, hand-ms, latency, image or uid")
      }
      guard values.updateValue(String(pair[1]), forKey: String(key)) == nil else {
        throw EmulatorError("option '\(key)' is given twice in '\(text)'")
      }
    }
    if let name = values["latency"] {
      guard let model = LatencyModel(rawValue: name) else {
        throw EmulatorError("unknown latency '\(name)' in '\(text)': use \(LatencyModel.allCases.map(\.rawValue).joined(separator: " or "))")
      }
      latency = model
    }
    if let path = values["image"] { imagePath = path }
    guard let count = values["feed"] else {
      if let key = ["seed", "images", "hand-ms", "uid"].first(where: { values[$0] != nil }) {
        throw EmulatorError("option '\(key)' in '\(text)' needs feed=N")
      }
      return
    }
    guard imagePath == nil else { throw EmulatorError("a feed in '\(text)' saves its tags with images=DIR, not an image file") }
    guard let n = Int(count), (1...FeedSettings.maximumCount).contains(n) else {
      throw EmulatorError("feed=\(count) in '\(text)': give 1 to \(FeedSettings.maximumCount) tags")
    }
    var settings = FeedSettings(kinds: kinds, count: n, imageDirectory: values["images"])
    if let seed = values["seed"] {
      guard let value = UInt64(seed) else { throw EmulatorError("seed=\(seed) in '\(text)' is not a number") }
      settings.seed = value
    }
    if let uid = values["uid"] {
      guard uid == "random" else { throw EmulatorError("uid=\(uid) in '\(text)': the one value is random") }
      guard kinds.allSatisfy({ $0.desfireChip != nil }) else {
        throw EmulatorError("uid=random in '\(text)' is for desfire kinds (their random ID): not \(kinds.map(\.rawValue).joined(separator: ", "))")
      }
      settings.randomUID = true
    }
    if let hand = values["hand-ms"] {
      guard let value = Int(hand), (0...600_000).contains(value) else {
        throw EmulatorError("hand-ms=\(hand) in '\(text)': give 0 to 600000 milliseconds")
      }
      settings.handMilliseconds = value
    }
    feed = settings
  }
}
