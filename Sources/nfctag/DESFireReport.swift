import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

/// What `desfire info`, `apps` and `files` read of a MIFARE DESFire: each part the card refused
/// (hidden by its key settings) carries the refusal instead, so the rest is still shown.
struct DESFireCardReport: Sendable {
  struct FileReport: Sendable {
    var number: UInt8
    var settings: Result<DESFireFileSettings, DESFireCommandError>
  }
  struct ApplicationReport: Sendable {
    var aid: DESFireApplicationID
    var keySettings: Result<DESFireKeySettingsInfo, DESFireCommandError>
    /// Its ISO file ID and DF name from GetDFNames (nil: it has none), or GetDFNames' refusal.
    var isoNames: Result<DESFireDFNameEntry?, DESFireCommandError> = .success(nil)
    /// nil when the files were not asked for.
    var files: Result<[FileReport], DESFireCommandError>?
  }
  var version: DESFireVersionInfo
  /// GetCardUID's answer (the card's real UID) when the PICC master key was given; nil without it.
  var cardUID: Result<[UInt8], DESFireCommandError>?
  /// The UID the reader reported at activation (`desfire info` marks a random ID); nil when not asked.
  var shownUID: [UInt8]? = nil
  var freeMemory: Result<Int, DESFireCommandError>
  var piccKeySettings: Result<DESFireKeySettingsInfo, DESFireCommandError>
  var applications: Result<[ApplicationReport], DESFireCommandError>
  /// A MIFARE DESFire Light's one application and files (DESFireLightReport.swift); nil on others.
  var light: DESFireLightReport? = nil

  /// Reads the PICC level (after `authenticate`, when given) and every application, with its
  /// files when `files` is true, and GetCardUID when `cardUID` is true and `authenticate` given.
  /// Only a lost link (or an answer that fails its check) is thrown; a refusal is kept in its part.
  static func read(_ card: DESFireCard, version: DESFireVersionInfo, authenticate: DESFirePICCAuthentication?,
                   files: Bool, cardUID: Bool = false) throws(DESFireCommandError) -> DESFireCardReport {
    if version.isLight { return try readLight(card, version: version, authenticate: authenticate, cardUID: cardUID) }
    try card.selectApplication(.picc)
    try authenticate?(card, version)
    // Right after the authentication: GetCardUID needs its session, which a refusal ends.
    let uid = authenticate == nil || !cardUID
      ? nil : try refusal(orUnsupported: true) { () throws(DESFireCommandError) in try card.cardUID() }
    let free = try refusal { () throws(DESFireCommandError) in try card.freeMemory() }
    let picc = try refusal { () throws(DESFireCommandError) in try card.keySettings() }
    let aids = try refusal { () throws(DESFireCommandError) in try card.applicationIDs() }
    let names = try refusal { () throws(DESFireCommandError) in try card.dfNames() }
    var applications: Result<[ApplicationReport], DESFireCommandError>
    switch aids {
    case .failure(let error): applications = .failure(error)
    case .success(let aids):
      var reports: [ApplicationReport] = []
      for aid in aids.sorted() {
        try card.selectApplication(aid)
        var report = try application(card, aid: aid, files: files)
        report.isoNames = names.map { $0.first { $0.aid == aid } }
        reports.append(report)
      }
      applications = .success(reports)
    }
    return DESFireCardReport(version: version, cardUID: uid, freeMemory: free, piccKeySettings: picc, applications: applications)
  }

  /// The selected application's key settings and, when `files`, its files.
  static func application(_ card: DESFireCard, aid: DESFireApplicationID, files: Bool) throws(DESFireCommandError) -> ApplicationReport {
    let settings = try refusal { () throws(DESFireCommandError) in try card.keySettings() }
    guard files else { return ApplicationReport(aid: aid, keySettings: settings, files: nil) }
    let list = try refusal { () throws(DESFireCommandError) -> [FileReport] in
      var reports: [FileReport] = []
      for number in try card.fileIDs() {
        reports.append(FileReport(number: number, settings: try refusal { () throws(DESFireCommandError) in try card.fileSettings(number) }))
      }
      return reports
    }
    return ApplicationReport(aid: aid, keySettings: settings, files: list)
  }

  /// `body`'s value, or the card's refusal (a native status) as the failure; anything else thrown.
  /// With `orUnsupported`, the host's refusal before sending (`invalidArgument`: GetCardUID without
  /// a session) is a failure too.
  static func refusal<T>(orUnsupported: Bool = false,
                         _ body: () throws(DESFireCommandError) -> T) throws(DESFireCommandError) -> Result<T, DESFireCommandError> {
    do { return .success(try body()) } catch {
      if case .status = error { return .failure(error) }
      if orUnsupported, case .invalidArgument = error { return .failure(error) }
      throw error
    }
  }
}

// MARK: Text

extension DESFireKeySettingsInfo {
  /// "0f (master key changeable, free listing, free create/delete, settings changeable), 1 DES/2K3DES key".
  var text: String {
    var flags: [String] = []
    if masterKeyChangeable { flags.append("master key changeable") }
    if freeDirectoryList { flags.append("free listing") }
    if freeCreateDelete { flags.append("free create/delete") }
    if settingsChangeable { flags.append("settings changeable") }
    let type = keyType?.description ?? "reserved type"
    return "\(hexString([settings])) (\(flags.isEmpty ? "nothing free" : flags.joined(separator: ", "))), "
      + "\(keyCount) \(type) key\(keyCount == 1 ? "" : "s")"
  }

  var json: String {
    var o = JSONObjectWriter()
    o.string("settings", hexString([settings]))
    o.bool("masterKeyChangeable", masterKeyChangeable)
    o.bool("freeDirectoryList", freeDirectoryList)
    o.bool("freeCreateDelete", freeCreateDelete)
    o.bool("settingsChangeable", settingsChangeable)
    o.number("keyCount", keyCount)
    o.string("keyType", keyType.map { "\($0)" } ?? "reserved")
    return o.finish()
  }
}

extension DESFireFileCommunication {
  /// plain, mac, full: the names `create-file --comm` takes.
  var name: String {
    switch self {
    case .plain: return "plain"
    case .mac: return "mac"
    case .full: return "full"
    }
  }
}

extension DESFireFileSettings {
  /// "standard data, 32 bytes, plain, read free, write key 1, read&write key 1, change key 0".
  var text: String {
    var parts = [fileType?.description ?? "type \(hexString([fileTypeByte]))"]
    if let size { parts.append("\(size) bytes") }
    if let records { parts.append("records of \(records.size) bytes, \(records.current) of \(records.maximum)") }
    if let limits = valueLimits { parts.append("value \(limits.lower) to \(limits.upper)") }
    parts.append(communication?.name ?? "communication \(hexString([communicationByte]))")
    parts.append("read \(DESFireFileAccess.rightText(access.read))")
    parts.append("write \(DESFireFileAccess.rightText(access.write))")
    parts.append("read&write \(DESFireFileAccess.rightText(access.readWrite))")
    parts.append("change \(DESFireFileAccess.rightText(access.change))")
    return parts.joined(separator: ", ")
  }

  func json(number: UInt8) -> String {
    var o = JSONObjectWriter()
    o.number("file", Int(number))
    o.string("type", fileType.map { "\($0)" } ?? hexString([fileTypeByte]))
    o.string("communication", communication?.name ?? hexString([communicationByte]))
    if let size { o.number("size", size) }
    if let records { o.number("recordSize", records.size); o.number("maxRecords", records.maximum); o.number("records", records.current) }
    if let limits = valueLimits { o.number("lowerLimit", Int(limits.lower)); o.number("upperLimit", Int(limits.upper)) }
    var rights = JSONObjectWriter()
    rights.string("read", DESFireFileAccess.rightText(access.read))
    rights.string("write", DESFireFileAccess.rightText(access.write))
    rights.string("readWrite", DESFireFileAccess.rightText(access.readWrite))
    rights.string("change", DESFireFileAccess.rightText(access.change))
    o.raw("access", rights.finish())
    return o.finish()
  }
}

/// `{"error":"…"}` for a part the card refused.
func desfireErrorJSON(_ error: DESFireCommandError) -> String {
  var o = JSONObjectWriter()
  o.string("error", error.description)
  return o.finish()
}

extension DESFireCardReport.ApplicationReport {
  func text(indent: String) -> String {
    var lines = ["\(indent)application \(aid): " + textOf(keySettings, \.text)]
    switch isoNames {
    case .success(nil): break
    case .success(let entry?): lines.append("\(indent)  ISO file ID \(entry.isoFileIDText), DF name \(hexString(entry.dfName))")
    case .failure(let error): lines.append("\(indent)  DF names: \(error)")
    }
    switch files {
    case nil: break
    case .failure(let error)?: lines.append("\(indent)  files: \(error)")
    case .success(let files)?:
      if files.isEmpty { lines.append("\(indent)  no files") }
      for file in files { lines.append("\(indent)  file \(file.number): " + textOf(file.settings, \.text)) }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  var json: String {
    var o = JSONObjectWriter()
    o.string("aid", aid.description)
    o.raw("keySettings", jsonOf(keySettings, \.json))
    switch isoNames {
    case .success(nil): break
    case .success(let entry?): o.string("isoFileID", entry.isoFileIDText); o.string("dfName", hexString(entry.dfName))
    case .failure(let error): o.raw("dfName", desfireErrorJSON(error))
    }
    switch files {
    case nil: break
    case .failure(let error)?: o.raw("files", desfireErrorJSON(error))
    case .success(let files)?:
      o.array("files", files.map { file in jsonOf(file.settings) { $0.json(number: file.number) } })
    }
    return o.finish()
  }
}

func textOf<T>(_ result: Result<T, DESFireCommandError>, _ text: (T) -> String) -> String {
  switch result {
  case .success(let value): return text(value)
  case .failure(let error): return "\(error)"
  }
}

func jsonOf<T>(_ result: Result<T, DESFireCommandError>, _ json: (T) -> String) -> String {
  switch result {
  case .success(let value): return json(value)
  case .failure(let error): return desfireErrorJSON(error)
  }
}

extension DESFireDFNameEntry {
  /// The ISO file ID as 4 hex digits, most significant first ("e110").
  var isoFileIDText: String { hexString([UInt8(isoFileID >> 8), UInt8(isoFileID & 0xFF)]) }
}
