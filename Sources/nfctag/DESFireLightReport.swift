import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

/// What `desfire info` reads of a MIFARE DESFire Light: it has no PICC level to list (no
/// GetApplicationIDs, GetFreeMemory, GetKeySettings), one application selected by ISO SELECT
/// (``DESFireCard/selectLightApplication()``) and fixed files (docs/desfire.md, "DESFire Light").
struct DESFireLightReport: Sendable {
  /// The DF name the application answered to (the shipped one, or the NDEF application's).
  var dfName: [UInt8]
  /// Its files and their settings, or the card's refusal.
  var files: Result<[DESFireCardReport.FileReport], DESFireCommandError>
}

extension DESFireCardReport {
  /// ``read(_:version:authenticate:files:cardUID:)`` on a Light: its application selected, the key
  /// given (key 0 of the application; a Light authenticates only by EV2) and GetCardUID when
  /// asked, then its files.
  static func readLight(_ card: DESFireCard, version: DESFireVersionInfo, authenticate: DESFirePICCAuthentication?,
                        cardUID: Bool) throws(DESFireCommandError) -> DESFireCardReport {
    let name = try card.selectLightApplication()
    try authenticate?(card, version)
    let uid = authenticate == nil || !cardUID
      ? nil : try refusal(orUnsupported: true) { () throws(DESFireCommandError) in try card.cardUID() }
    let files = try refusal { () throws(DESFireCommandError) -> [FileReport] in
      var reports: [FileReport] = []
      for number in try card.fileIDs() {
        reports.append(FileReport(number: number, settings: try refusal { () throws(DESFireCommandError) in try card.fileSettings(number) }))
      }
      return reports
    }
    let none = DESFireCommandError.invalidArgument("a MIFARE DESFire Light has no PICC level to list")
    // `desfire apps` says where the one application is rather than "no applications".
    let one = DESFireCommandError.invalidArgument("a MIFARE DESFire Light has one application, selected by ISO SELECT "
                                                  + "(DF name \(hexString(name))): `nfctag desfire info` shows it and its files")
    var report = DESFireCardReport(version: version, cardUID: uid, freeMemory: .failure(none), piccKeySettings: .failure(none),
                                   applications: .failure(one))
    report.light = DESFireLightReport(dfName: name, files: files)
    return report
  }
}

extension DESFireCommand.Info {
  /// `info`'s text for a Light.
  static func lightText(_ report: DESFireCardReport, _ light: DESFireLightReport) -> String {
    let version = report.version, hw = version.hardware, sw = version.software
    let cardUIDLine = report.cardUID.map { "\ncard UID:     " + textOf($0) { hexString($0) } + " (GetCardUID)" } ?? ""
    var lines = [
      "chip:         \(version.productName)",
      "UID:          \(hexString(version.uid))\(cardUIDLine)",
      "hardware:     vendor \(hexString([hw.vendor])), type \(hexString([hw.type])).\(hexString([hw.subType])), "
        + "version \(hw.majorVersion).\(hw.minorVersion), storage \(version.storageText)",
      "software:     version \(sw.majorVersion).\(sw.minorVersion)",
      "production:   week \(hexString([version.productionWeek])) of 20\(hexString([version.productionYear])), batch \(hexString(version.batchNumber))",
      "application:  DF name \(hexString(light.dfName)) (one application, fixed files: a DESFire Light)",
    ]
    switch light.files {
    case .failure(let error): lines.append("  files: \(error)")
    case .success(let files):
      for file in files { lines.append("  file \(file.number): " + textOf(file.settings, \.text)) }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `info --format json` for a Light.
  static func lightJSON(_ report: DESFireCardReport, _ light: DESFireLightReport) -> String {
    let version = report.version
    var o = JSONObjectWriter()
    o.string("chip", version.productName)
    o.string("generation", "Light")
    o.string("uid", hexString(version.uid))
    switch report.cardUID {
    case .success(let uid)?: o.string("cardUID", hexString(uid))
    case .failure(let error)?: o.raw("cardUID", desfireErrorJSON(error))
    case nil: break
    }
    writeVersionFrames(version, to: &o)
    o.string("productionWeek", hexString([version.productionWeek]))
    o.string("productionYear", hexString([version.productionYear]))
    o.string("batch", hexString(version.batchNumber))
    var application = JSONObjectWriter()
    application.string("dfName", hexString(light.dfName))
    switch light.files {
    case .failure(let error): application.raw("files", desfireErrorJSON(error))
    case .success(let files):
      application.array("files", files.map { file in jsonOf(file.settings) { $0.json(number: file.number) } })
    }
    o.raw("application", application.finish())
    return o.finish()
  }
}

/// GetVersion's hardware and software frames as `desfire info --json` shows them, for every
/// DESFire generation and the Light.
func writeVersionFrames(_ version: DESFireVersionInfo, to o: inout JSONObjectWriter) {
  let hw = version.hardware, sw = version.software
  var hardware = JSONObjectWriter()
  for (key, value) in [("vendor", hw.vendor), ("type", hw.type), ("subType", hw.subType), ("major", hw.majorVersion),
                       ("minor", hw.minorVersion), ("storageSize", hw.storageSize)] {
    hardware.number(key, Int(value))
  }
  o.raw("hardware", hardware.finish())
  var software = JSONObjectWriter()
  software.number("major", Int(sw.majorVersion))
  software.number("minor", Int(sw.minorVersion))
  o.raw("software", software.finish())
}
