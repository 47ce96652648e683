import ArgumentParser
import NFCTagCLI
import NTAG424
import ProvisionCommands
import Provisioning

/// A `provision` job checked whole, before the ledger or a tag is touched (step 1 of
/// ``ProvisionCommand/perform(in:)``): its rows, its template, and the secrets it needs.
struct ProvisionJob {
  /// The rows: the rows file, or `--count` rows from the template alone.
  let rows: RowsFile
  /// What every tag gets, rendered per row.
  let template: MessageTemplate
  /// The settings the ledger records for the job (or compares with the job's).
  let settings: JobSettings
  /// The rows checked against the template (no problem left).
  let validation: JobValidation
  /// `--protect`'s secret, from which each tag's password is derived.
  let secret: ProvisioningSecret?
  /// `--sdm-url`'s job: every tag an NTAG 424 DNA keyed from the master key.
  let sun: SUNProvisioning?
  /// The DESFire options' job: every tag a MIFARE DESFire keyed as they say.
  let desfire: DESFireProvisioning?
}

extension ProvisionCommand {
  /// `--mirror` as Provisioning's mode.
  var mirrorMode: MirrorMode? { mirror.flatMap { MirrorMode(rawValue: $0.rawValue) } }

  /// Step 1: the job, checked whole before any tag is touched, in this order: a `--sdm-url`
  /// template by the rule `sdm setup` applies (64), the rows file readable (66), the template,
  /// every row (65, one line per problem), then the secrets (`--secret-*`, `--master-key-*`).
  func checkJob(in context: CommandContext) throws -> ProvisionJob {
    if let sdmUrl {
      do { _ = try SUNTemplate.check(sdmUrl) } catch {
        throw CLIFailure(.invalidValue(sanitizeLine("--sdm-url: \(error)")))
      }
    }
    if let rows, access(rows, R_OK) != 0 {
      throw CLIFailure(.unreadableFile("cannot read the rows file \(rows): \(String(cString: strerror(errno)))"))
    }
    let rowsFile = rows.map { RowsFile.load(path: $0) } ?? RowsFile.counted(count ?? 0)
    let (template, settings) = try makeTemplate(in: context)
    let validation = try validate(rowsFile, template: template, in: context)
    let secret = try readSecret(in: context)
    let sun = try readMasterKey(in: context).map { SUNProvisioning(masterKey: $0, lock: lock) }
    let desfire = try readDESFireJob(in: context)  // ProvisionCommand+DESFire.swift
    return ProvisionJob(rows: rowsFile, template: template, settings: settings, validation: validation, secret: secret, sun: sun,
                        desfire: desfire)
  }

  /// Every row against the template (``JobValidation``), then, with `--sdm-url`, every row's URL
  /// planned for the tag (``sunProblems(rows:template:validation:source:lock:)``).
  /// - Throws: 65 after one line per problem.
  private func validate(_ rows: RowsFile, template: MessageTemplate, in context: CommandContext) throws(ExitCode) -> JobValidation {
    let validation = JobValidation(rows: rows, template: template, mirror: mirrorMode)
    try refuse(validation.problems.map(\.description), in: context)
    if let sdmUrl {
      try refuse(Self.sunProblems(rows: rows, template: template, validation: validation, source: sdmUrl, lock: lock), in: context)
    }
    return validation
  }

  /// One line per problem, then 65; nothing when there is none.
  private func refuse(_ problems: [String], in context: CommandContext) throws(ExitCode) {
    guard !problems.isEmpty else { return }
    for problem in problems { context.say(sanitizeLine(problem)) }
    throw ExitCode(ExitStatus.dataError)
  }

  /// The template, and the job's settings (what every tag gets) to record or compare.
  private func makeTemplate(in context: CommandContext) throws(CLIFailure) -> (MessageTemplate, JobSettings) {
    func settings(_ kind: JobSettings.TemplateKind, _ source: String) -> JobSettings {
      JobSettings(kind: kind, template: source, mirror: mirrorMode, protect: protect, protectReads: protectReads, lock: lock)
    }
    do {
      if let url { return (.url(try Template(url)), settings(.url, url)) }
      if let text { return (.text(try Template(text)), settings(.text, text)) }
      if let sdmUrl { return (.url(try Template(SUNTemplate.escaping(sdmUrl))), settings(.sdmURL, sdmUrl)) }
      if let message {
        let bytes = try readInputOrFail(message, in: context)
        return (.message(try MessageJSONTemplate(parsing: bytes)), settings(.message, String(decoding: bytes, as: UTF8.self)))
      }
    } catch let failure as CLIFailure {
      throw failure
    } catch {
      throw CLIFailure(.malformedInput("the template: \(sanitizeLine("\(error)"))"))
    }
    throw CLIFailure(.invalidCommandLine("no template"))
  }

  /// `--sdm-url`: every row's URL planned for the tag (with a stand-in UID) before any tag is
  /// touched: one line per row the planner refuses.
  static func sunProblems(rows: RowsFile, template: MessageTemplate, validation: JobValidation, source: String, lock: Bool) -> [String] {
    let content = JobContent(rows: rows, template: template, mirror: nil, validation: validation)
    let job = SUNProvisioning(masterKey: .factory, lock: lock)
    let standIn = [UInt8](repeating: 0, count: 7)
    var problems: [String] = []
    for row in rows.rows {
      do {
        let message = try content.render(rowID: row.id, sequence: row.sequence, uid: standIn)
        _ = try job.plan(url: try SUNProvisioning.urlTemplate(of: message))
      } catch {
        problems.append("\(row.label): --sdm-url: \(error)")
        if problems.count == 20 { problems.append("(further rows not checked)"); break }
      }
    }
    return problems
  }

  /// `--sdm-url`'s master key, from its file or variable; nil without --sdm-url. Errors name
  /// the option and the source, never a digit of the key.
  private func readMasterKey(in context: CommandContext) throws(CLIFailure) -> AESKey? {
    guard sdmUrl != nil else { return nil }
    return try SDMKeys.key(file: masterKeyFile, env: masterKeyEnv, role: "the master key",
                           options: ("--master-key-file", "--master-key-env"), in: context)
  }

  /// `--protect`'s secret, from its file or variable; nil without --protect.
  private func readSecret(in context: CommandContext) throws(CLIFailure) -> ProvisioningSecret? {
    guard protect else { return nil }
    // The error names the secret's length and where it came from, never a byte of it.
    func secret(_ text: String, from source: String) throws(CLIFailure) -> ProvisioningSecret {
      do { return try ProvisioningSecret(text: text) } catch {
        throw CLIFailure(.invalidValue(sanitizeLine("\(error) (read from \(source))")))
      }
    }
    if let secretFile {
      let bytes = try readSecretInputOrFail(secretFile, option: "--secret-file", alternative: "--secret-env", in: context)
      return try secret(String(decoding: bytes, as: UTF8.self), from: "the file \(secretSourceName(secretFile, option: "--secret-file"))")
    }
    if let secretEnv {
      let value = try secretVariableOrFail(secretEnv, option: "--secret-env", alternative: "--secret-file",
                                           what: "the provisioning secret", in: context)
      return try secret(value, from: "the environment variable \(secretSourceName(secretEnv, option: "--secret-env"))")
    }
    return nil
  }
}
