import NFCTransport

/// Which part of a tag's memory a restore write belongs to.
public enum MemoryRegion: String, Sendable, Hashable {
  /// User memory: what NDEF and applications store (written by default).
  case user
  /// Lock bits, OTP, CC on Type 2, configuration and password pages: written only when the
  /// restore includes the system areas.
  case system
}

/// One write of a restore: a unit of memory (a page, a block or, on a static Type 1 tag, a byte)
/// and its new contents.
public struct MemoryUnitWrite: Hashable, Sendable {
  /// The page, block or byte number, as the tag's write command names it.
  public var unit: Int
  /// The bytes the unit will hold (the unit's size).
  public var bytes: [UInt8]
  /// User memory, or a system area (written only when the restore includes them).
  public var region: MemoryRegion
  /// True for units the chip makes permanent (lock bits, OTP, one-time CC, CFGLCK, FeliCa MC).
  public var permanent: Bool
  /// True for units holding a secret (a password): the exchange is masked in traces and the unit
  /// is not read back (the chip hides it).
  public var secret: Bool

  /// A write of `bytes` to `unit`; see each property.
  public init(unit: Int, bytes: [UInt8], region: MemoryRegion, permanent: Bool = false, secret: Bool = false) {
    self.unit = unit
    self.bytes = bytes
    self.region = region
    self.permanent = permanent
    self.secret = secret
  }
}

/// What writing a memory image (a `dump --memory` of the same chip) back onto a tag will do,
/// worked out from the image and from what the tag holds now, before any write.
///
/// Made by ``MemoryRestoring/planRestore(image:includingSystemAreas:)``; carried out by
/// ``MemoryRestoring/restore(_:verify:)`` on the same tag in the same connection.
public struct MemoryRestorePlan: Sendable {
  /// The tag's NFC Forum platform.
  public var platform: TagPlatform
  /// The chip, as the platform names it.
  public var chip: String
  /// "page", "block" or "byte".
  public var unitName: String
  /// Bytes per unit.
  public var unitSize: Int
  /// The units in scope, in words ("pages 4–225 (user memory)").
  public var scope: String
  /// The writes, in the order they will be sent; units whose contents are already equal are left out.
  public var writes: [MemoryUnitWrite]
  /// Units in scope that already hold the image's contents.
  public var unchanged: Int
  /// How the order keeps a tear harmless, in words.
  public var order: String
  /// Facts worth telling: areas left alone, differences that cannot be written.
  public var notes: [String]

  /// A plan as a platform works it out; see each property.
  public init(platform: TagPlatform, chip: String, unitName: String, unitSize: Int, scope: String,
              writes: [MemoryUnitWrite], unchanged: Int, order: String, notes: [String] = []) {
    self.platform = platform
    self.chip = chip
    self.unitName = unitName
    self.unitSize = unitSize
    self.scope = scope
    self.writes = writes
    self.unchanged = unchanged
    self.order = order
    self.notes = notes
  }

  /// Bytes the writes carry.
  public var byteCount: Int { writes.reduce(0) { $0 + $1.bytes.count } }

  /// The permanent changes, in words ("page 2 (static lock bits)"): what needs a confirmation.
  public var permanentChanges: [String] {
    writes.filter(\.permanent).map { "\(unitName) \($0.unit)" }
  }
}

/// A platform whose memory is a flat map of pages or blocks that a dump image can be written
/// back to: Types 1, 2, 3 and 5. Type 4 keeps its NDEF message in files and is not one.
public protocol MemoryRestoring: NDEFTagPlatform {
  /// Reads the tag and works out the writes that make its memory equal to `image` in the user
  /// area (and, with `includingSystemAreas`, in lock, OTP, CC, configuration and password
  /// areas too, as far as the chip lets them change). Nothing is written.
  /// - Throws: ``TagError/unsupported(_:)`` when the image is not of this chip (its size differs)
  ///   or asks for a change the chip cannot make (a one-time bit set back);
  ///   ``TagError/readOnly`` when a unit that must change is locked.
  func planRestore(image: [UInt8], includingSystemAreas: Bool) throws(TagError) -> MemoryRestorePlan
  /// Sends the plan's writes in order and, with `verify`, reads the written units back.
  /// - Throws: ``TagError/verifyFailed(address:)`` when the memory differs afterwards.
  func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError)
}

/// The tear-safe order of a restore in TLV memory (Types 1, 2 and 5), worked out from two whole
/// memory images: what the tag holds now and what it will hold.
///
/// When more than one unit changes: (1) the tag's current NDEF TLV, if it has a message, gets
/// length 00; (2) the units from the start of the scope up to the image's NDEF TLV length byte
/// are written with that length 00; (3) the other changed units, ascending; (4) the unit with the
/// image's NDEF length last. A tear therefore leaves the old message, an empty one, or the new
/// one, never part of a message. Without an NDEF TLV in the image the units go in address order.
struct TLVRestoreOrder {
  /// Bytes per unit.
  var unitSize: Int
  /// The units to restore, ascending.
  var units: [Int]
  /// The first length byte of the image's NDEF TLV (nil: the image has none).
  var imageLengthAddress: Int?
  /// The first length byte of the tag's current NDEF TLV, when it holds a message.
  var currentLengthAddress: Int?

  /// The writes, in order, from `current` to `image` (both whole memory images, address 0 first).
  func writes(current: [UInt8], image: [UInt8], region: MemoryRegion = .user) -> [MemoryUnitWrite] {
    func contents(_ memory: [UInt8], _ unit: Int) -> [UInt8] {
      let start = unit * unitSize
      guard start >= 0, start + unitSize <= memory.count else { return [] }
      return Array(memory[start ..< start + unitSize])
    }
    let changed = units.filter { contents(current, $0) != contents(image, $0) }
    guard changed.count > 1 else {
      return changed.map { MemoryUnitWrite(unit: $0, bytes: contents(image, $0), region: region) }
    }
    var state: [Int: [UInt8]] = [:]
    for unit in units { state[unit] = contents(current, unit) }
    var out: [MemoryUnitWrite] = []
    func emit(_ unit: Int, _ bytes: [UInt8]) {
      guard state[unit] != bytes, !bytes.isEmpty else { return }
      out.append(MemoryUnitWrite(unit: unit, bytes: bytes, region: region))
      state[unit] = bytes
    }
    func zeroing(_ address: Int, in bytes: [UInt8]) -> [UInt8] {
      var b = bytes
      let i = address - (address / unitSize) * unitSize
      if i >= 0, i < b.count { b[i] = 0 }
      return b
    }
    if let old = currentLengthAddress, units.contains(old / unitSize), let now = state[old / unitSize] {
      emit(old / unitSize, zeroing(old, in: now))
    }
    guard let length = imageLengthAddress, units.contains(length / unitSize) else {
      for unit in changed { emit(unit, contents(image, unit)) }
      return out
    }
    let lengthUnit = length / unitSize
    let header = units.filter { $0 <= lengthUnit }
    for unit in header {
      let wanted = contents(image, unit)
      emit(unit, unit == lengthUnit ? zeroing(length, in: wanted) : wanted)
    }
    for unit in changed where unit != lengthUnit { emit(unit, contents(image, unit)) }
    emit(lengthUnit, contents(image, lengthUnit))
    return out
  }

  /// The first length byte of the NDEF TLV in `memory`'s data `area`, when the TLVs parse and
  /// hold one (and, with `onlyWithMessage`, only when its message is not empty).
  static func ndefLengthAddress(in memory: [UInt8], area: TLVArea, onlyWithMessage: Bool = false) -> Int? {
    guard area.end <= memory.count,
          let layout = try? TLVLayout.parse(memory: TLVMemoryImage(memory), area: area),
          let tlv = layout.ndefTLVAddress else { return nil }
    if onlyWithMessage && layout.ndefLength == 0 { return nil }
    let address = layout.skipReserved(tlv + 1)
    return address < area.end ? address : nil
  }

  /// The order in words, for a plan.
  var description: String {
    guard let imageLengthAddress else { return "address order (the image holds no NDEF TLV)" }
    return "NDEF length (byte \(imageLengthAddress)) 00 first, the other units, then the length"
  }
}

/// "pages 4–225" for a plan's scope.
func unitRange(_ name: String, _ units: [Int]) -> String {
  guard let first = units.first, let last = units.last else { return "no \(name)s" }
  return first == last ? "\(name) \(first)" : "\(name)s \(first)–\(last)"
}

/// Refuses an image whose size is not the dump size of this tag.
func checkImageSize(_ image: [UInt8], expected: Int, chip: String) throws(TagError) {
  guard image.count == expected else {
    throw .unsupported("the image has \(image.count) bytes; a memory dump of this \(chip) has \(expected): "
                       + "it is not an image of this chip")
  }
}

/// Compares the units a restore wrote (their last contents) with `memory`, a fresh read of the
/// whole memory; `address` maps a unit to its first byte in `memory`.
func verifyRestore(_ plan: MemoryRestorePlan, memory: [UInt8], address: (Int) -> Int) throws(TagError) {
  var last: [Int: [UInt8]] = [:]
  for write in plan.writes where !write.secret { last[write.unit] = write.bytes }
  for (unit, bytes) in last.sorted(by: { $0.key < $1.key }) {
    let start = address(unit)
    guard start >= 0, start + bytes.count <= memory.count else { throw .verifyFailed(address: start) }
    for (i, byte) in bytes.enumerated() where memory[start + i] != byte {
      throw .verifyFailed(address: start + i)
    }
  }
}
