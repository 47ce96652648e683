import NFCTransport

/// A value of ``TagInfoFact`` for programs: what `nfctag info --json` prints, with no sentence
/// in it (numbers are numbers, bytes are hex, states are camelCase words).
public indirect enum TagInfoValue: Sendable, Equatable {
  case number(Int)
  case string(String)
  case bool(Bool)
  /// Bytes, printed as one hex string.
  case bytes([UInt8])
  case list([TagInfoValue])
  /// Members in order.
  case object([Member])
  case null

  /// One member of an object.
  public struct Member: Sendable, Equatable {
    public var key: String
    public var value: TagInfoValue
    public init(_ key: String, _ value: TagInfoValue) {
      self.key = key
      self.value = value
    }
  }

  /// An object from its members, in the order written.
  public static func members(_ pairs: KeyValuePairs<String, TagInfoValue>) -> TagInfoValue {
    .object(pairs.map { Member($0.key, $0.value) })
  }

  /// `{"start":…,"size":…}`: a span of memory by its first byte and its length.
  public static func span(_ range: Range<Int>) -> TagInfoValue {
    members(["start": .number(range.lowerBound), "size": .number(range.count)])
  }
}

/// One fact `info` reports about a tag: a label and a sentence for people, a key and a
/// structured value for programs.
public struct TagInfoFact: Sendable {
  /// The label of the text output ("Data area").
  public var label: String
  /// The JSON key (camelCase: "dataArea").
  public var key: String
  /// The value in words, for the text output ("144 bytes (CC)").
  public var text: String
  /// The value for programs.
  public var value: TagInfoValue

  public init(_ label: String, key: String, text: String, value: TagInfoValue) {
    self.label = label
    self.key = key
    self.text = text
    self.value = value
  }

  /// A fact whose value is bytes, shown as spaced hex ("04 a1 b2") and given as hex.
  public static func bytes(_ label: String, key: String, _ bytes: [UInt8]) -> TagInfoFact {
    TagInfoFact(label, key: key, text: hexString(bytes, separator: " "), value: .bytes(bytes))
  }

  /// Why the tag holds no usable NDEF structure (the one fact whose value is a sentence: a
  /// reason, as an error message is).
  public static func ndefProblem(_ why: String) -> TagInfoFact {
    TagInfoFact("NDEF", key: "ndefProblem", text: why, value: .string(why))
  }

  /// The TLVs of a data area, or why they could not be walked.
  static func tlvs(_ result: Result<TLVLayout, TagError>) -> TagInfoFact {
    switch result {
    case .success(let layout): return TagInfoFact("TLVs", key: "tlvs", text: layout.summary, value: layout.summaryValue)
    case .failure(let error):
      return TagInfoFact("TLVs", key: "tlvs", text: "\(error)", value: .members(["error": .string("\(error)")]))
    }
  }
}

/// A range of byte addresses as people read it: "byte 12", "bytes 160–161" (both ends included).
func byteSpan(_ range: Range<Int>) -> String {
  switch range.count {
  case ..<1: return "no bytes at \(range.lowerBound)"
  case 1: return "byte \(range.lowerBound)"
  default: return "bytes \(range.lowerBound)–\(range.upperBound - 1)"
  }
}

/// "none", "some" or "all": how many of the lock bits a group of lock bytes sets.
func lockExtent(_ bytes: [UInt8], all: Bool) -> String {
  bytes.allSatisfy { $0 == 0 } ? "none" : (all ? "all" : "some")
}

/// A CC write-access nibble or byte for programs: `granted`, `readOnly` (or `never`), `proprietary`.
func accessValue(_ value: UInt8, meaning: String) -> TagInfoValue {
  .members(["value": .number(Int(value)), "meaning": .string(meaning)])
}
