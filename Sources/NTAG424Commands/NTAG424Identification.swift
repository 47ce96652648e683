import Hex

/// The one identification of an NTAG 424 DNA, for every command that needs to know (`info`,
/// `sdm setup`, `keys`): GetVersion's answer, whose hardware vendor, type and subtype name the
/// chip (NT4H2421Gx datasheet §10.5.2, Table 54; ``ChipVersion/chip``). An ATS, a CC or an NDEF
/// application that look like a 424 DNA's are no evidence: other ISO-DEP tags show the same
/// (the virtual Type 4 tag shows the 424 DNA's ATS and CC and takes no native command).
public enum NTAG424Identification: Hashable, Sendable {
  /// GetVersion names an NTAG 424 DNA (or 424 DNA TT).
  case ntag424(ChipVersion)
  /// It does not: why, one line ("GetVersion answered 6e00").
  case other(reason: String)

  /// From GetVersion's answer: its frames' data joined, and the last frame's status word.
  public init(getVersionData data: [UInt8], sw1: UInt8, sw2: UInt8) {
    guard sw1 == 0x91, sw2 == 0x00 else {
      self = .other(reason: "GetVersion answered \(hexString([sw1, sw2]))")
      return
    }
    let version: ChipVersion
    do { version = try ChipVersion(parsing: data) } catch {
      self = .other(reason: "GetVersion's answer does not parse (\(error))")
      return
    }
    if case .other = version.chip {
      self = .other(reason: "GetVersion names an \(version.chip)")
    } else {
      self = .ntag424(version)
    }
  }

  /// "not an NTAG 424 DNA: …", the line every command says it with; nil for a 424 DNA.
  public var refusal: String? {
    guard case .other(let reason) = self else { return nil }
    return Self.refusal(reason)
  }

  /// "not an NTAG 424 DNA: `reason`".
  public static func refusal(_ reason: String) -> String { "not an NTAG 424 DNA: \(reason)" }
}
