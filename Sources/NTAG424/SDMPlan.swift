import NDEF

/// The keys SDM uses, by role: which key number the tag encrypts PICCData with, which one its
/// SDM session keys come from, and who may read the counter (NT4H2421Gx datasheet §9.3, §10.7.1).
public struct SDMKeyRoles: Hashable, Sendable {
  /// SDMMetaRead: the key number (0–4) PICCData is encrypted with (`{picc}`).
  public var metaReadKey: UInt8
  /// SDMFileRead: the key number (0–4) of the SDMMAC and SDMENCFileData (`{cmac}`, `{enc:N}`).
  public var fileReadKey: UInt8
  /// SDMCtrRet: who may read the counter with GetFileCounters.
  public var counterRetrieval: AccessCondition

  /// Roles from their keys; the defaults are NXP AN12196 §5.9's (meta-read key 2, file-read key 1,
  /// counter retrieval key 1).
  public init(metaReadKey: UInt8 = 2, fileReadKey: UInt8 = 1, counterRetrieval: AccessCondition = .key(1)) {
    self.metaReadKey = metaReadKey
    self.fileReadKey = fileReadKey
    self.counterRetrieval = counterRetrieval
  }
}

/// A planned SUN set-up: the NDEF file to write and the ChangeFileSettings value that makes the
/// tag fill it in at every read. Made by ``plan(template:roles:accessRights:readCounterLimit:fileData:fileSize:)``.
///
/// The template is a URL with placeholders, each at most once:
///
/// | placeholder | mirrored | digits | offset set |
/// |---|---|---|---|
/// | `{picc}` | encrypted PICCData (UID and counter), SDMMetaRead key | 32 | PICCDataOffset |
/// | `{enc:N}` | SDMENCFileData: `fileData`, N/2 characters, encrypted (N a multiple of 32) | N | SDMENCOffset, SDMENCLength |
/// | `{cmac}` | the SDMMAC, SDMFileRead key | 16 | SDMMACOffset |
///
/// Only templates a verifier can check are planned: ``SUNTemplateRule`` (each placeholder the whole
/// value of a query parameter of its own, `{picc}` with `{cmac}`, `{enc:N}` before `{cmac}`; the
/// chip's plain `{uid}`/`{ctr}` mirrors are not offered). The SDMMAC covers the bytes from the
/// start of `{enc:N}` to the MAC when there is file data (as in NXP AN12196's example
/// `enc=…&cmac=`), nothing otherwise (SDMMACInputOffset = SDMMACOffset, as in AN12196 §5.9).
/// Offsets count from the first byte of the NDEF file, NLEN included (NT4H2421Gx datasheet §9.3.1).
///
/// ```swift
/// let plan = try SDMPlan.plan(template: "https://example.com/t?p={picc}&c={cmac}")
/// // plan.ndefFile: NLEN || URI record with 32 + 16 zeros; plan.settings: ChangeFileSettings of file 02
/// ```
public struct SDMPlan: Hashable, Sendable {
  /// The NDEF file's bytes: NLEN (2 bytes, big-endian), then one URI record.
  public let ndefFile: [UInt8]
  /// The URL as written, placeholders filled with `0` digits.
  public let url: String
  /// The settings for ChangeFileSettings of the NDEF file (02h).
  public let settings: FileSettings
  /// Where the SUN fields sit in the URL a tap produces, for a verifier that reads offsets (every
  /// plan has one: ``SUNTemplateRule`` requires `{picc}` and `{cmac}`).
  public let urlLayout: SUNURLLayout?
  /// The names of the query parameters that hold the SUN fields, for `sdm verify` and `sdm serve`.
  public let parameters: SUNTemplateParameters

  /// Plans a SUN set-up from a URL template.
  ///
  /// - Parameters:
  ///   - template: the URL with placeholders.
  ///   - roles: the key numbers of each SDM role.
  ///   - accessRights: the NDEF file's own access rights; the default is AN12196 §5.9's: read
  ///     free (phones must read the file without a key), write, read&write and change key 0.
  ///   - readCounterLimit: SDMReadCtrLimit, nil for none.
  ///   - fileData: the ASCII text `{enc:N}` encrypts, N/2 printable characters; required with
  ///     `{enc:N}`, refused without it.
  ///   - fileSize: the NDEF file's size (256 on the 424 DNA).
  /// - Throws: ``NTAG424Error/invalidParameter(_:)`` for an unknown or repeated placeholder, a
  ///   template ``SUNTemplateRule`` refuses, `{enc:N}` without its data, key numbers above 4, or a
  ///   file that does not fit.
  public static func plan(template: String, roles: SDMKeyRoles = SDMKeyRoles(),
                          accessRights: AccessRights = AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)),
                          readCounterLimit: Int? = nil, fileData: String? = nil,
                          fileSize: Int = 256) throws(NTAG424Error) -> SDMPlan {
    let parsed = try SDMTemplate(parsing: template, fileData: fileData)
    let parameters = try SUNTemplateRule.check(parsed)
    let fields = parsed.fields
    guard let picc = fields["picc"], let cmac = fields["cmac"] else { throw .invalidParameter("the URL template needs {picc} and {cmac}") }
    let enc = fields["enc"]
    if let enc, fileData == nil {
      throw .invalidParameter("{enc:\(enc.count)} needs the \(enc.count / 2) characters it encrypts (the file data): nothing to encrypt")
    }
    for key in [roles.metaReadKey, roles.fileReadKey] where key > 4 { throw .invalidKeyNumber(key) }
    _ = try roles.counterRetrieval.checked("SDMCtrRet")

    let record = URIRecord(uri: parsed.url).record
    let message: [UInt8]
    do { message = try NDEFMessage(records: [record]).encoded() } catch {
      throw .invalidParameter("the URL cannot be encoded as an NDEF URI record: \(error)")
    }
    let file = [UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)] + message
    guard file.count <= fileSize else {
      throw .invalidParameter("the NDEF file would be \(file.count) bytes; the file holds \(fileSize)")
    }
    // The URI's last bytes end the message: URL byte i sits at file offset file.count - (URL length - i).
    let urlLength = parsed.url.utf8.count
    func offset(_ urlIndex: Int) -> Int { file.count - (urlLength - urlIndex) }

    // PICCData mirrors the UID and the counter, encrypted (SDMMetaRead a key: NT4H2421Gx §9.3.4).
    var options: SDMOptions = [.asciiEncoding, .uid, .readCounter]
    if enc != nil { options.insert(.encryptedFileData) }
    if readCounterLimit != nil { options.insert(.readCounterLimit) }
    let macInput = enc?.lowerBound ?? cmac.lowerBound
    let sdm = SDMSettings(
      options: options,
      accessRights: SDMAccessRights(metaRead: .key(roles.metaReadKey), fileRead: .key(roles.fileReadKey),
                                    counterRetrieval: roles.counterRetrieval),
      uidOffset: nil, readCounterOffset: nil,
      piccDataOffset: offset(picc.lowerBound), macInputOffset: offset(macInput),
      encryptedFileDataOffset: enc.map { offset($0.lowerBound) }, encryptedFileDataLength: enc?.count,
      macOffset: offset(cmac.lowerBound), readCounterLimit: readCounterLimit)
    let settings = FileSettings(communicationMode: .plain, accessRights: accessRights, sdm: sdm)
    _ = try settings.changeData()   // every offset fits, every key is 0–4

    let layout = SUNURLLayout(piccDataOffset: picc.lowerBound, macInputOffset: macInput, macOffset: cmac.lowerBound,
                              fileData: enc.map { (offset: $0.lowerBound, digits: $0.count) })
    return SDMPlan(ndefFile: file, url: parsed.url, settings: settings, urlLayout: layout, parameters: parameters)
  }
}

/// A URL template taken apart: the URL with placeholders filled, and where each one is.
struct SDMTemplate {
  /// The URL, each placeholder replaced by its digits.
  let url: String
  /// Each placeholder's range in the URL's UTF-8 bytes, by name (`picc`, `enc`, `cmac`).
  let fields: [String: Range<Int>]

  init(parsing template: String, fileData: String?) throws(NTAG424Error) {
    var out: [UInt8] = []
    var fields: [String: Range<Int>] = [:]
    var rest = Array(template.utf8)[...]
    while let open = rest.firstIndex(of: UInt8(ascii: "{")) {
      out += rest[..<open]
      guard let close = rest[open...].firstIndex(of: UInt8(ascii: "}")) else {
        throw .invalidParameter("the URL template has a '{' without its '}'")
      }
      let name = String(decoding: rest[(open + 1)..<close], as: UTF8.self)
      let (field, filling) = try Self.filling(for: name, fileData: fileData)
      guard fields[field] == nil else { throw .invalidParameter("{\(field)} appears more than once in the URL template") }
      fields[field] = out.count..<(out.count + filling.count)
      out += filling
      rest = rest[(close + 1)...]
    }
    out += rest
    guard !out.contains(UInt8(ascii: "}")) else { throw .invalidParameter("the URL template has a '}' without its '{'") }
    if fileData != nil, fields["enc"] == nil { throw .invalidParameter("file data given, but the URL template has no {enc:N}") }
    url = String(decoding: out, as: UTF8.self)
    self.fields = fields
  }

  /// The placeholder's name and the bytes it is written as.
  private static func filling(for name: String, fileData: String?) throws(NTAG424Error) -> (String, [UInt8]) {
    func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "0"), count: count) }
    switch name {
    case "picc": return ("picc", zeros(32))
    case "cmac": return ("cmac", zeros(16))
    case "uid", "ctr":
      throw .invalidParameter("{uid} and {ctr} (the chip's plain mirrors) are not supported: nothing here can verify them; {picc} carries the UID and counter, encrypted, with {cmac}")
    default:
      guard name.hasPrefix("enc:"), let digits = Int(name.dropFirst(4)), digits > 0, digits % 32 == 0 else {
        throw .invalidParameter("unknown placeholder {\(name)}: use {picc}, {cmac} or {enc:N}, N a multiple of 32")
      }
      guard let fileData else { return ("enc", zeros(digits)) }
      let text = Array(fileData.utf8)
      guard text.count == digits / 2, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
        throw .invalidParameter("the file data for {enc:\(digits)} must be \(digits / 2) printable ASCII characters")
      }
      return ("enc", text + zeros(digits / 2))
    }
  }
}
