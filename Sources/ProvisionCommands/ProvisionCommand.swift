import ArgumentParser
import NFCTagCLI

/// `--mirror`'s values: Provisioning's `MirrorMode` by its raw value (the declaration does not
/// link the provisioning modules; nfctag-provision maps it).
package enum MirrorArgument: String, ExpressibleByArgument, CaseIterable, Sendable {
  case uid
  case counter
  case uidAndCounter = "uid+counter"
}

/// `--desfire-key-type`'s values: the DESFire key types `provision` gives cards (DESFireTag's
/// `DESFireSecretKey.Kind` by raw value; the declaration does not link DESFireTag).
package enum DESFireKeyTypeArgument: String, ExpressibleByArgument, CaseIterable, Sendable {
  case aes
  case twoKeyTripleDES = "2k3des"
  case threeKeyTripleDES = "3k3des"
}

/// `nfctag provision`: a row per tag from a rows file (or a count), verified, recorded in a ledger.
///
/// The declaration: options and their checks. nfctag-provision parses and performs it (nfctag
/// hands `provision` over by name, before parsing: its `HandOver.commands`); `run(in:)` dispatches
/// the command (``CommandContext/dispatch(_:)``: performed in nfctag-provision).
package struct ProvisionCommand: ToolCommand {
  package static let configuration = CommandConfiguration(
    commandName: "provision",
    abstract: "Write one row per tag from a CSV or JSON-lines file, verified and recorded in a ledger.",
    discussion: """
      Every tag gets the next pending row, rendered from the template: {COLUMN} from the row, \
      {uid} (the tag's UID, lowercase hex), {n} or {n:06} (the row's number), {{ and }} for \
      braces, {mirror} (the room for --mirror). The whole job is checked before any tag is \
      touched (exit 65). Each tag is written tear-safely, read back, optionally mirrored, \
      protected and locked, read back again, and only then recorded as done in the ledger \
      (SQLite by default; postgres://USER@HOST:PORT/DB for several stations). Rerunning the \
      same command continues where it stopped; a tag whose UID is done is skipped. The ledger \
      records the job's template and --mirror, --protect, --protect-reads and --lock: a rerun \
      with others is refused (65) unless --allow-template-change. Ctrl-C \
      finishes the tag in hand, then stops; a second Ctrl-C stops between two tag commands.
      Exit 0 when every row is done; 75 when --timeout passed with rows remaining; otherwise \
      the highest exit status of a failed tag (EXIT STATUS in the man page; exit-codes.md in the documentation folder).
      With --sdm-url, every tag is an NTAG 424 DNA: its five keys are derived from the master key \
      and its UID (ntag-424-dna.md), its SUN URL written and set up, keys 1-4 then key 0 changed, and \
      the URL it produces read back and verified before the row is done; --lock makes its NDEF \
      file writable by no one.
      With --desfire-master-key-file/-env or --desfire-keys-file, every tag is a MIFARE DESFire: \
      the NDEF application (AN11004) is made when missing, the row's message written and read \
      back, then the NDEF application's key 0 and the PICC master key changed to the card's keys \
      (diversified by AN10922 from the master key and the card's real UID, or the file's), each \
      step recorded so that a rerun finishes a card taken away (desfire.md and provisioning.md); \
      --lock then makes the NDEF file (and the CC's write access byte) read-only for good.
      With --sdm-url and --desfire-master-key-file/-env, every tag is a MIFARE DESFire EV3 (an EV1 \
      or EV2 is refused, 64): its NDEF application made with five AES keys, the SUN URL set up, \
      the application's keys derived from --master-key-file/-env as a 424 DNA's (so sdm verify \
      with that master key checks them) and the PICC master key from the DESFire master key.
      """)

  @Argument(help: "The rows: CSV with a header row, or JSON lines (.jsonl). A column `id` names each row.")
  package var rows: String?

  @Option(help: "A URL template, e.g. https://example.com/t/{id}.") package var url: String?
  @Option(help: "A text template (an NFC Forum Text record, English).") package var text: String?
  @Option(help: ArgumentHelp("""
    An NTAG 424 DNA (with the DESFire keys, a DESFire EV3) SUN URL template: {picc} and {cmac}, \
    each the whole value of a query parameter of its own (?p={picc}&c={cmac}), filled by the tag \
    at every read; optionally {enc:N:COLUMN} before {cmac}, the column's N/2 characters \
    encrypted; row placeholders ({COLUMN}, {uid}, {n}) by the run; needs --master-key-file or \
    --master-key-env.
    """, valueName: "url"))
  package var sdmUrl: String?
  @Option(help: "With --sdm-url: a file whose first line is the batch's AES-128 master key (32 hex digits).")
  package var masterKeyFile: String?
  @Option(help: "With --sdm-url: an environment variable holding the master key (32 hex digits).")
  package var masterKeyEnv: String?
  @Option(help: ArgumentHelp("""
    MIFARE DESFire: a file whose first line is the master key (hex, of --desfire-key-type) each card's \
    keys are diversified from (AN10922, with the card's real UID).
    """, valueName: "file"))
  package var desfireMasterKeyFile: String?
  @Option(help: ArgumentHelp("MIFARE DESFire: an environment variable holding the master key in hex.", valueName: "name"))
  package var desfireMasterKeyEnv: String?
  @Option(help: ArgumentHelp("""
    MIFARE DESFire: a file with fixed keys for every card, in hex of --desfire-key-type: the PICC \
    master key on its first line, the NDEF application's key on its second.
    """, valueName: "file"))
  package var desfireKeysFile: String?
  @Option(help: ArgumentHelp("MIFARE DESFire: the cards' new keys' type (default aes).", valueName: "aes|2k3des|3k3des"))
  package var desfireKeyType: DESFireKeyTypeArgument = .aes
  @Option(help: ArgumentHelp("""
    MIFARE DESFire: a file whose first line is the PICC master key the cards come with (default: the DES zero key).
    """, valueName: "file"))
  package var desfireFactoryKeyFile: String?
  @Option(help: ArgumentHelp("MIFARE DESFire: the system identifier ending every diversification input (6 to 21 characters; default nfctag).",
                             valueName: "text"))
  package var desfireSystemId: String?
  @Option(help: "A message template: the message JSON of json-format.md (the documentation folder) with placeholders in its strings.")
  package var message: String?
  @Option(help: "The ledger: a SQLite file (default ROWS.ledger.sqlite, or nfctag-provision.sqlite) or postgres://USER@HOST:PORT/DB.")
  package var ledger: String?
  @Option(help: "The job's name in the ledger (default: the rows file's name).") package var job: String?
  // Unconditional, so that `--count -3` reaches the check below instead of reading as an option.
  @Option(parsing: .unconditional, help: "Without ROWS: provision N tags from the template alone.",
          transform: ProvisionCommand.count(_:))
  package var count: Int?
  @Option(name: .shortAndLong, parsing: .singleValue,
          help: "A reader (name, unique prefix, index, or a sim: simulator); repeat for several, or `all`.")
  package var reader: [String] = []
  @Option(help: "This station's name on every row it writes (default: the host name).") package var station: String?
  @Option(parsing: .unconditional, help: "Seconds without a tag before the run ends (default: never).")
  package var timeout: Double?
  @Flag(help: "Make every tag read-only after writing it (permanent: needs --yes).") package var lock = false
  @Flag(help: "Confirm a permanent operation (--lock).") package var yes = false
  @Flag(help: "Protect every tag with its own password: PWD = HMAC-SHA256(secret, UID)[0..<4], PACK the next 2 bytes.")
  package var protect = false
  @Option(help: "A file holding the provisioning secret (at least 16 bytes).") package var secretFile: String?
  @Option(help: "An environment variable holding the provisioning secret.") package var secretEnv: String?
  @Flag(help: "With --protect: reads need the password too.") package var protectReads = false
  @Option(help: "NTAG213/215/216 mirror into the {mirror} room of the URL: uid, counter or uid+counter.")
  package var mirror: MirrorArgument?
  @Flag(help: ArgumentHelp("""
    Go on with a template or options (--mirror, --protect, --protect-reads, --lock) other than the \
    job was started with; they are recorded as the job's from now on.
    """))
  package var allowTemplateChange = false
  @Flag(help: "One JSON event per line on stdout.") package var json = false
  @Flag(name: .shortAndLong, help: "Print errors only.") package var quiet = false
  @Flag(help: "Do not signal outcomes on the reader (LEDs and buzzer of the ACR122U, ACR1252U and ACR1552U).") package var noFeedback = false
  @Flag(help: "Print every APDU in and out on stderr (secrets are masked).") package var trace = false

  package init() {}

  package func validate() throws {
    let templates = [url, text, message, sdmUrl].compactMap { $0 }.count
    guard templates == 1 else { throw ValidationError("give the message with exactly one of --url, --text, --message or --sdm-url.") }
    let masterKeys = [masterKeyFile, masterKeyEnv].compactMap { $0 }.count
    if sdmUrl != nil, masterKeys != 1 { throw ValidationError("--sdm-url needs exactly one of --master-key-file or --master-key-env.") }
    if sdmUrl == nil, masterKeys != 0 { throw ValidationError("--master-key-file and --master-key-env go with --sdm-url.") }
    if sdmUrl != nil, protect || mirror != nil {
      throw ValidationError("--protect and --mirror are for NTAG21x tags; --sdm-url keys each NTAG 424 DNA from the master key.")
    }
    try validateDESFire()
    if rows != nil, count != nil { throw ValidationError("give ROWS or --count, not both.") }
    if rows == nil, count == nil { throw ValidationError("give ROWS (a CSV or .jsonl file) or --count N.") }
    if let count, !Self.counts.contains(count) { throw ValidationError(Self.countRule) }
    if lock, !yes { throw ValidationError("--lock makes every tag read-only for good: add --yes to confirm.") }
    if protect != ((secretFile != nil) || (secretEnv != nil)) || (secretFile != nil && secretEnv != nil) {
      throw ValidationError(protect ? "--protect needs exactly one of --secret-file or --secret-env."
                                    : "--secret-file and --secret-env go with --protect.")
    }
    if protectReads, !protect { throw ValidationError("--protect-reads goes with --protect.") }
    if let timeout, !(timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--timeout must be more than 0 and at most 86400 seconds.")
    }
    if json, quiet { throw ValidationError("give --json or --quiet, not both.") }
  }

  /// Whether the job is a DESFire job (its keys are given).
  package var isDESFireJob: Bool { desfireMasterKeyFile != nil || desfireMasterKeyEnv != nil || desfireKeysFile != nil }

  /// The DESFire options' checks (64): one source of keys; the others only with one; not with
  /// the NTAG options; with `--sdm-url` (a DESFire EV3 job) AES keys and a master key.
  private func validateDESFire() throws {
    let sources = [desfireMasterKeyFile, desfireMasterKeyEnv, desfireKeysFile].compactMap { $0 }.count
    if sources > 1 {
      throw ValidationError("give the DESFire keys with one of --desfire-master-key-file, --desfire-master-key-env or --desfire-keys-file.")
    }
    let others = desfireFactoryKeyFile != nil || desfireSystemId != nil || desfireKeyType != .aes
    if sources == 0, others {
      throw ValidationError("--desfire-key-type, --desfire-factory-key-file and --desfire-system-id go with the DESFire keys "
                            + "(--desfire-master-key-file, --desfire-master-key-env or --desfire-keys-file).")
    }
    guard sources == 1 else { return }
    if sdmUrl != nil, desfireKeysFile != nil {
      throw ValidationError("--sdm-url derives the NDEF application's keys from --master-key-file or --master-key-env; give the PICC master key's "
                            + "master with --desfire-master-key-file or --desfire-master-key-env, not --desfire-keys-file.")
    }
    if sdmUrl != nil, desfireKeyType != .aes {
      throw ValidationError("--sdm-url needs AES keys (SDM is AES on a DESFire EV3): leave --desfire-key-type at aes.")
    }
    if protect || mirror != nil {
      throw ValidationError("--protect and --mirror are NTAG21x features (password protection, the UID mirror): a DESFire job protects "
                            + "each card with its keys, and SDM is the DESFire's mirror: --sdm-url.")
    }
    if sdmUrl != nil, lock {
      throw ValidationError("--lock goes with a DESFire job without --sdm-url (the SDM file's settings are not changed again).")
    }
    if desfireKeysFile != nil, desfireSystemId != nil { throw ValidationError("--desfire-system-id goes with a master key, not --desfire-keys-file.") }
    if let id = desfireSystemId, !(6...21).contains(id.utf8.count) {
      throw ValidationError("--desfire-system-id has 6 to 21 bytes, not \(id.utf8.count).")
    }
  }

  /// The counts `--count` takes.
  static let counts = 1...1_000_000
  static let countRule = "--count must be a positive whole number, at most 1000000."

  /// `--count`'s value: a whole number in ``counts``.
  static func count(_ argument: String) throws -> Int {
    guard let value = Int(argument), counts.contains(value) else { throw ValidationError(countRule) }
    return value
  }

  package func run(in context: CommandContext) throws {
    try context.dispatch(self)
  }
}
