// What a job writes besides its rows, recorded in the ledger so that a rerun cannot change it
// half-way without saying so.
import NDEFJSON

/// A job's template and the options that change what is written on every tag: the mirror,
/// password protection (whether, never the secret nor anything derived from it), protected
/// reads, and the permanent lock.
///
/// The ledger keeps them as ``encoded`` (``ProvisioningLedger/Ledger/recordSettings(_:replacing:)``);
/// ``differences(from:)`` names, in the command line's words, how a run differs from the job.
public struct JobSettings: Equatable, Sendable {
  /// How the message is given.
  public enum TemplateKind: String, Sendable, CaseIterable {
    /// `--url T`.
    case url
    /// `--text T`.
    case text
    /// `--message FILE.json`.
    case message
    /// `--sdm-url T` (NTAG 424 DNA, keys from a master key that is never recorded).
    case sdmURL = "sdm-url"
  }

  /// How the message is given.
  public var kind: TemplateKind
  /// The template: the URL or text template, or the message JSON template's text.
  public var template: String
  /// `--mirror`'s mode, or nil.
  public var mirror: MirrorMode?
  /// `--protect`.
  public var protect: Bool
  /// `--protect-reads`.
  public var protectReads: Bool
  /// `--lock`.
  public var lock: Bool

  /// Settings as given.
  public init(kind: TemplateKind, template: String, mirror: MirrorMode? = nil, protect: Bool = false,
              protectReads: Bool = false, lock: Bool = false) {
    self.kind = kind; self.template = template; self.mirror = mirror
    self.protect = protect; self.protectReads = protectReads; self.lock = lock
  }

  /// One JSON object, members in a fixed order: `{"template":"url","source":"…","mirror":null,
  /// "protect":false,"protectReads":false,"lock":false}`.
  public var encoded: String {
    var json = JSONWriter()
    json.raw("{\"template\":")
    json.string(kind.rawValue)
    json.raw(",\"source\":")
    json.string(template)
    json.raw(",\"mirror\":")
    if let mirror { json.string(mirror.rawValue) } else { json.raw("null") }
    json.raw(",\"protect\":")
    json.bool(protect)
    json.raw(",\"protectReads\":")
    json.bool(protectReads)
    json.raw(",\"lock\":")
    json.bool(lock)
    json.raw("}")
    return json.text
  }

  /// The settings ``encoded`` wrote, or nil for text that is not such an object.
  public init?(decoding text: String) {
    guard let json = try? JSONParser.parse(Array(text.utf8)),
          let kind = json["template"]?.stringValue.flatMap(TemplateKind.init(rawValue:)),
          let template = json["source"]?.stringValue,
          let protect = json["protect"]?.boolValue, let protectReads = json["protectReads"]?.boolValue,
          let lock = json["lock"]?.boolValue
    else { return nil }
    let mirror: MirrorMode?
    switch json["mirror"] {
    case .string(let mode)?:
      guard let known = MirrorMode(rawValue: mode) else { return nil }
      mirror = known
    case .null?, nil: mirror = nil
    default: return nil
    }
    self.init(kind: kind, template: template, mirror: mirror, protect: protect, protectReads: protectReads, lock: lock)
  }

  /// How this run's settings differ from `recorded`, the job's, one phrase each in the command
  /// line's words: `the job was started with --url 'https://e.com/{id}', this run has --text
  /// 'Asset {n}'`. Empty when they are the same. `recorded` nil: the job's settings cannot be read.
  public func differences(from recorded: JobSettings?) -> [String] {
    guard let recorded else { return ["the job was started with settings this nfctag cannot read"] }
    var out: [String] = []
    if recorded.kind == .message, kind == .message, recorded.template != template {
      out.append("the job was started with another --message template (its JSON differs from this run's)")
    } else if recorded.kind != kind || recorded.template != template {
      out.append("the job was started with \(recorded.templateOption), this run has \(templateOption)")
    }
    if recorded.mirror != mirror {
      func name(_ mode: MirrorMode?) -> String { mode.map { "--mirror \($0.rawValue)" } ?? "no --mirror" }
      out.append("the job was started with \(name(recorded.mirror)), this run has \(name(mirror))")
    }
    for (flag, was, now) in [("--protect", recorded.protect, protect), ("--protect-reads", recorded.protectReads, protectReads),
                             ("--lock", recorded.lock, lock)] where was != now {
      out.append(was ? "the job was started with \(flag), this run has none" : "the job was started without \(flag), this run has it")
    }
    return out
  }

  /// `--url 'https://e.com/{id}'`, `--text 'Asset {n}'` or `--message (a message JSON
  /// template)`; long templates are cut, and nothing in one can break the line.
  var templateOption: String {
    let limit = 60
    let flat = oneLineText(template)
    let shown = flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    switch kind {
    case .url, .text, .sdmURL: return "--\(kind.rawValue) '\(shown)'"
    case .message: return "--message (a message JSON template)"
    }
  }
}
