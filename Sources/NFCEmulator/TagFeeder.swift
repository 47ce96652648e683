import Locking
import NFCTransport

/// What a tag feeder presents: `count` factory-fresh tags, one after another, each leaving the
/// field after the host's feedback command or an idle hand (``TagDeparture``).
public struct FeedSettings: Sendable, Equatable {
  /// The kinds in turn: tag i (1-based) is `kinds[(i - 1) % kinds.count]`.
  public var kinds: [VirtualTagKind]
  /// How many tags come.
  public var count: Int
  /// Picks the UIDs (``FeederUIDs``); feeds with different seeds have disjoint UIDs.
  public var seed: UInt64
  /// Where each tag's final memory is saved as `NNNN-UID.bin`; nil saves nothing.
  public var imageDirectory: String?
  /// Milliseconds without a command after which a tag that was talked to leaves.
  public var handMilliseconds: Int
  /// Every tag comes with its random ID on (MIFARE DESFire kinds only: SetConfiguration's bit 1,
  /// DESFireVirtualTag+Configuration.swift): it shows `08` and 3 random bytes, its feed UID is
  /// the real one (GetCardUID's, its image's name).
  public var randomUID = false

  /// 300 ms: a hand taking the tag away once the host went quiet.
  public static let defaultHandMilliseconds = 300
  /// The most tags one feed presents (the UID scheme has room for 2^24 per seed).
  public static let maximumCount = 1_000_000

  /// A feed of `count` tags of `kinds` in turn; the other settings as above.
  public init(kinds: [VirtualTagKind], count: Int, seed: UInt64 = 0, imageDirectory: String? = nil,
              handMilliseconds: Int = FeedSettings.defaultHandMilliseconds) {
    self.kinds = kinds
    self.count = count
    self.seed = seed
    self.imageDirectory = imageDirectory
    self.handMilliseconds = handMilliseconds
  }
}

/// When a fed tag leaves the field: right after it answered the ACR122U LED and buzzer command
/// (`FF 00 40 …`, the host's "done" feedback) or its reader answered ACS's buzzer escape (the
/// feedback's last step on the ACR1252U and ACR1552U, through `SCardControl`), or once the host sent nothing for the hand time
/// after its last command. A tag nobody has sent a command to stays: the hand waits for a reader
/// that is slow to start.
public struct TagDeparture: Sendable, Equatable {
  /// Seconds of silence after which the tag leaves.
  public let handSeconds: Double
  /// The feedback command was answered: the tag leaves now.
  public private(set) var leaving = false
  /// When the last command was answered (``TagDeparture/now()``), nil before the first.
  public private(set) var lastCommand: Double?

  /// A departure after `handMilliseconds` of silence (negative counts as 0).
  public init(handMilliseconds: Int) { handSeconds = Double(max(0, handMilliseconds)) / 1000 }

  /// Notes that the tag answered `apdu` at `time`.
  public mutating func answered(_ apdu: [UInt8], at time: Double) {
    lastCommand = time
    if Self.isFeedback(apdu) { leaving = true }
  }

  /// Notes that the tag's reader answered the control request `data` (`SCardControl`) at `time`.
  public mutating func controlled(_ data: [UInt8], at time: Double) {
    lastCommand = time
    if Self.isFeedbackEscape(data) { leaving = true }
  }

  /// When the tag leaves, in ``TagDeparture/now()`` seconds; nil while nobody talked to it.
  public var deadline: Double? {
    guard let lastCommand else { return nil }
    return leaving ? lastCommand : lastCommand + handSeconds
  }

  /// True once the tag has to leave at `time`.
  public func hasLeft(at time: Double) -> Bool { deadline.map { time >= $0 } ?? false }

  /// The ACR122U LED and buzzer command (ACS API V2.04 §6.2: `FF 00 40 P2 04 T1 T2 reps buzzer`).
  public static func isFeedback(_ apdu: [UInt8]) -> Bool {
    apdu.count >= 3 && apdu[0] == 0xFF && apdu[1] == 0x00 && apdu[2] == 0x40
  }

  /// ACS's buzzer escape, `E0 00 00 28 01 t` (ACM1252U-Y3 manual §5.3.2–5.3.4): the host sends it
  /// after the LED escape, so it ends the feedback.
  public static func isFeedbackEscape(_ data: [UInt8]) -> Bool {
    data.count >= 4 && data[0] == 0xE0 && data[1] == 0x00 && data[2] == 0x00 && data[3] == 0x28
  }

  /// Monotonic seconds, the clock departures are measured on.
  public static func now() -> Double { monotonicSeconds() }
}

/// One tag of a feed while it is in the field.
/// - Warning: Not thread-safe; the feeder's owner serialises access.
public final class FedTag {
  /// 1-based position in the feed.
  public let index: Int
  /// What kind of tag it is.
  public let kind: VirtualTagKind
  /// The tag itself.
  public let tag: any VirtualTag
  /// The tag behind the feed's reader face.
  public let card: any VirtualCard
  /// When it leaves the field.
  public var departure: TagDeparture

  init(index: Int, kind: VirtualTagKind, tag: any VirtualTag, card: any VirtualCard, departure: TagDeparture) {
    self.index = index
    self.kind = kind
    self.tag = tag
    self.card = card
    self.departure = departure
  }

  /// `NNNN-uid.bin`: the index in 4 digits and the UID in lower-case hex (a DESFire's real UID,
  /// never the random ID it shows).
  public var imageName: String { TagFeeder.imageName(index: index, uid: (tag as? DESFireVirtualTag)?.uid ?? tag.shownIdentifier) }
}

/// Makes the tags of a feed one after another and saves each one's final memory.
/// - Warning: Not thread-safe; the vpcd bridge and the simulator poller serialise access.
public final class TagFeeder {
  /// The feed's kinds, count, seed, image folder and hand time.
  public let settings: FeedSettings
  /// The reader face every tag is shown in.
  public let face: ReaderFaceKind
  /// Tags handed out so far.
  public private(set) var arrived = 0

  /// - Parameters:
  ///   - settings: the feed's kinds, count, seed, image folder and hand time.
  ///   - face: the reader face; nil picks the kinds' default (Part 3 only when every kind is an
  ///     ISO 15693 tag).
  /// - Throws: ``EmulatorError`` for an empty kind list, a count outside 1…1,000,000, a kind the
  ///   face cannot show, or an image directory that cannot be created.
  public init(settings: FeedSettings, face: ReaderFaceKind? = nil) throws(EmulatorError) {
    guard let first = settings.kinds.first else { throw EmulatorError("a feed needs at least one tag kind") }
    guard (1...FeedSettings.maximumCount).contains(settings.count) else {
      throw EmulatorError("a feed has 1 to \(FeedSettings.maximumCount) tags (got \(settings.count))")
    }
    let face = face ?? (settings.kinds.allSatisfy { $0.defaultFace == first.defaultFace } ? first.defaultFace : .acr122u)
    for kind in settings.kinds { _ = try face.makeFace(tag: try kind.makeTag(uid: nil)) }
    if let directory = settings.imageDirectory { try Self.makeDirectory(directory) }
    self.settings = settings
    self.face = face
  }

  /// The next tag, factory-fresh with its feed UID; nil once `count` tags came.
  public func next() throws(EmulatorError) -> FedTag? {
    guard arrived < settings.count else { return nil }
    arrived += 1
    let kind = settings.kinds[(arrived - 1) % settings.kinds.count]
    let tag = try kind.makeTag(uid: FeederUIDs.uid(for: kind, seed: settings.seed, index: arrived))
    if settings.randomUID {
      guard let desfire = tag as? DESFireVirtualTag else { throw EmulatorError("a \(kind.rawValue) has no random UID: uid=random is for desfire kinds") }
      desfire.turnOnRandomID()
    }
    let card = try face.makeFace(tag: tag)
    return FedTag(index: arrived, kind: kind, tag: tag, card: card,
                  departure: TagDeparture(handMilliseconds: settings.handMilliseconds))
  }

  /// Saves `fed`'s memory as `DIR/NNNN-UID.bin` (the `--image` format) when the feed has an
  /// image directory.
  /// - Returns: the path written, or nil without an image directory.
  @discardableResult
  public func save(_ fed: FedTag) throws(EmulatorError) -> String? {
    guard let directory = settings.imageDirectory else { return nil }
    let path = directory + "/" + fed.imageName
    try ImageFile.write(fed.tag.memoryImage, to: path)
    return path
  }

  /// `NNNN-uid.bin` for tag `index` with `uid`.
  public static func imageName(index: Int, uid: [UInt8]) -> String {
    let digits = String(index)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "-" + hexString(uid) + ".bin"
  }

  /// Creates `path` and its missing parents.
  private static func makeDirectory(_ path: String) throws(EmulatorError) {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
      prefix += component
      if !LibC.makeDirectory(prefix) {
        throw EmulatorError("cannot create \(prefix): \(LibC.lastErrorText)")
      }
      prefix += "/"
    }
    guard LibC.isDirectory(path) else { throw EmulatorError("\(path) is not a directory") }
  }
}
