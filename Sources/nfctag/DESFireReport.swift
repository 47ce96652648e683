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
    /// nil when the files were not asked for.
    var files: Result<[FileReport], DESFireCommandError>?
  }
  var version: DESFireVersionInfo
  var freeMemory: Result<Int, DESFireCommandError>
  var piccKeySettings: Result<DESFireKeySettingsInfo, DESFireCommandError>
  var applications: Result<[ApplicationReport], DESFireCommandError>

  /// Reads the PICC level (after `authenticate`, when given) and every application, with its
  /// files when `files` is true. Only a lost link is thrown; a refusal is kept in its part.
  static func read(_ card: DESFireCard, version: DESFireVersionInfo, authenticate: DESFirePICCAuthentication?,
                   files: Bool) throws(DESFireCommandError) -> DESFireCardReport {
    try card.selectApplication(.picc)
    try authenticate?(card, version)
    let free = try refusal { () throws(DESFireCommandError) in try card.freeMemory() }
    let picc = try refusal { () throws(DESFireCommandError) in try card.keySettings() }
    let aids = try refusal { () throws(DESFireCommandError) in try card.applicationIDs() }
    var applications: Result<[ApplicationReport], DESFireCommandError>
    switch aids {
    case .failure(let error): applications = .failure(error)
    case .success(let aids):
      var reports: [ApplicationReport] = []
      for aid in aids.sorted() {
        try card.selectApplication(aid)
        reports.append(try application(card, aid: aid, files: files))
      }
      applications = .success(reports)
    }
    return DESFireCardReport(version: version, freeMemory: free, piccKeySettings: picc, applications: applications)
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
  static func refusal<T>(_ body: () throws(DESFireCommandError) -> T) throws(DESFireCommandError) -> Result<T, DESFireCommandError> {
    do { return .success(try body()) } catch {
      if case .status = error { return .failure(error) }
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
