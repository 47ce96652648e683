/// The query parameters of a SUN URL template: the names `sdm verify` and `sdm serve` find its
/// fields by (`--picc-param`, `--mac-param`, `--enc-param`).
public struct SUNTemplateParameters: Hashable, Sendable {
  /// The parameter whose whole value is `{picc}`.
  public let piccData: String
  /// The parameter whose whole value is `{cmac}`.
  public let mac: String
  /// The parameter whose whole value is `{enc:N}`, nil without one.
  public let fileData: String?
  /// The number of hex digits of `{enc:N}` (N), nil without one.
  public let fileDataDigits: Int?
}

/// Which SUN URL templates can be set up: those whose every tap a verifier here can check
/// (``SUNURL/init(parsing:piccDataParameter:macParameter:fileDataParameter:)``, which `sdm verify`
/// and `sdm serve` run). The one check of a template: ``SDMPlan`` runs it first, so `sdm setup`
/// and `provision --sdm-url` apply the same rule, before any command that changes a tag.
///
/// The rule (NT4H2421Gx datasheet §9.3, Secure Dynamic Messaging):
/// - `{picc}` (encrypted PICCData, §9.3.4) and `{cmac}` (the SDMMAC, §9.3.7), both: without the
///   MAC a copied or forged URL cannot be told from a tap; without PICCData there is no UID and
///   counter to derive the MAC's session keys from (§9.3.9), so neither goes alone.
/// - `{enc:N}` (SDMENCFileData, §9.3.6) optional, before `{cmac}`: the MAC covers the text from
///   the file data to the MAC (SDMMACInputOffset at SDMENCOffset, as in NXP AN12196 §3.4), which
///   must hold no `%`: a verifier percent-decodes what it receives (RFC 3986 §2.1).
/// - Each one the whole value of a query parameter of its own (`?p={picc}&c={cmac}`), named with
///   letters, digits, `-`, `.`, `_` or `~` and named once, so a verifier finds it by its name:
///   not in the scheme, host or path, not in the fragment, not run together, not beside other text.
/// - The plain mirrors `{uid}` and `{ctr}` (UIDOffset, SDMReadCtrOffset) are not offered: PICCData
///   carries the UID and counter, encrypted and MACed, and nothing here verifies a plain mirror.
public enum SUNTemplateRule {
  /// The rule in one line, as the help of `sdm setup --url` and `provision --sdm-url` states it.
  public static let statement =
    "{picc} and {cmac}, and optionally {enc:N} before {cmac}, each the whole value of a query parameter of its own (?p={picc}&c={cmac})"

  /// Checks `template` against the rule; returns the names of its SUN parameters.
  /// - Throws: ``NTAG424Error/invalidParameter(_:)`` saying what is wrong.
  public static func check(_ template: String) throws(NTAG424Error) -> SUNTemplateParameters {
    try check(SDMTemplate(parsing: template, fileData: nil))
  }

  static func check(_ parsed: SDMTemplate) throws(NTAG424Error) -> SUNTemplateParameters {
    let fields = parsed.fields
    switch (fields["picc"], fields["cmac"]) {
    case (nil, nil):
      throw .invalidParameter("the URL template needs {picc} and {cmac}, each as a query parameter (?p={picc}&c={cmac}): nothing else can be verified")
    case (nil, _):
      throw .invalidParameter("{cmac} needs {picc}: the MAC's keys come from the UID and counter that {picc} carries")
    case (_, nil):
      throw .invalidParameter("{picc} needs {cmac}: without the MAC a copied or forged URL cannot be told from a tap")
    default: break
    }
    let url = Array(parsed.url.utf8)
    let hash = url.firstIndex(of: UInt8(ascii: "#")) ?? url.count
    let question = url[..<hash].firstIndex(of: UInt8(ascii: "?"))
    let ordered = fields.sorted { $0.value.lowerBound < $1.value.lowerBound }
    var names: [String: String] = [:]
    for (field, range) in ordered {
      let shown = field == "enc" ? "{enc:N}" : "{\(field)}"
      guard range.upperBound <= hash else {
        throw .invalidParameter("\(shown) is in the fragment (after '#'): the SUN fields must be query parameters, before any '#'")
      }
      guard let question, range.lowerBound > question else {
        throw .invalidParameter("\(shown) is in the path or host: the SUN fields must be query parameters (?p={picc}&c={cmac})")
      }
      if ordered.contains(where: { $0.value.upperBound == range.lowerBound || $0.value.lowerBound == range.upperBound }) {
        throw .invalidParameter("\(shown) is run together with another placeholder: each must be the value of a parameter of its own (?p={picc}&c={cmac})")
      }
      let start = (url[(question + 1)..<range.lowerBound].lastIndex(of: UInt8(ascii: "&")) ?? question) + 1
      let after = range.upperBound == hash ? nil : url[range.upperBound]
      guard let equals = url[start..<range.lowerBound].firstIndex(of: UInt8(ascii: "=")), equals == range.lowerBound - 1,
            after == nil || after == UInt8(ascii: "&") else {
        throw .invalidParameter("\(shown) must be the whole value of its query parameter (name=\(shown), then '&', '#' or the end)")
      }
      let name = url[start..<equals]
      guard !name.isEmpty, name.allSatisfy(isUnreserved) else {
        throw .invalidParameter("\(shown) needs a parameter name of letters, digits, '-', '.', '_' or '~' (?p={picc}&c={cmac})")
      }
      names[field] = String(decoding: name, as: UTF8.self)
    }
    let query = url[(question ?? 0)..<hash].dropFirst()
    let queryNames = query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map {
      String(decoding: $0.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
    }
    for name in names.values where queryNames.filter({ $0 == name }).count > 1 {
      throw .invalidParameter("the parameter '\(name)' appears more than once in the query: a verifier could not tell which one the tag wrote")
    }
    guard let picc = names["picc"], let mac = names["cmac"], let macRange = fields["cmac"] else {
      throw .invalidParameter("the URL template needs {picc} and {cmac}")
    }
    if let enc = fields["enc"] {
      guard macRange.lowerBound >= enc.upperBound else {
        throw .invalidParameter("{enc:N} needs a {cmac} after it: the MAC covers the file data")
      }
      if url[enc.upperBound..<macRange.lowerBound].contains(UInt8(ascii: "%")) {
        throw .invalidParameter("the MAC covers the text from {enc:N} to {cmac}, which must hold no percent-encoded characters (a verifier decodes them)")
      }
    }
    return SUNTemplateParameters(piccData: picc, mac: mac, fileData: names["enc"], fileDataDigits: fields["enc"]?.count)
  }

  /// RFC 3986 §2.3's unreserved characters: a name that never needs percent-encoding.
  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
         UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }
}
