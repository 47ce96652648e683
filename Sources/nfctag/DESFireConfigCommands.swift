import ArgumentParser
import DESFireTag
import NFCSession
import NFCTagCLI
import NFCTags

/// Whether a UID a reader reports is a random ID: ISO/IEC 14443-3 gives a single-size (4-byte) UID
/// whose first byte is 08h to random IDs, new at each activation (a MIFARE DESFire after
/// SetConfiguration's random ID, an NTAG 424 DNA with its random ID). Never a card's identity:
/// what is keyed by UID needs the real one (a DESFire's GetCardUID, with a key).
func isRandomUID(_ uid: [UInt8]) -> Bool { uid.count == 4 && uid.first == 0x08 }

extension DESFireCommand {
  /// `nfctag desfire config [random-uid] [--disable-format] --yes`: SetConfiguration (5Ch) option
  /// 00h, whose bits are set for good (docs/desfire.md, "Random UID").
  struct Config: ToolCommand {
    /// What `config` turns on.
    enum Setting: String, ExpressibleByArgument, CaseIterable { case randomUID = "random-uid" }

    static let configuration = CommandConfiguration(
      commandName: "config",
      abstract: "Turn on a MIFARE DESFire's random UID or turn off FormatPICC, for good (SetConfiguration; needs --yes).",
      discussion: """
        random-uid: the card shows a random 4-byte UID starting 08 at each activation, and only GetCardUID, \
        after an authentication, gives its real UID. --disable-format: format-card is refused from now on. \
        Neither can be undone. Authenticates with the PICC master key: --picc-key-file or --picc-key-env, \
        else the factory DES zero key. Then prints the real UID (GetCardUID) and, for random-uid, the one a new \
        activation shows.
        """)
    @Argument(help: "random-uid: show a random UID at each activation.") var setting: Setting?
    @Flag(help: "Refuse FormatPICC (desfire format-card) from now on.") var disableFormat = false
    @Flag(help: "Confirm: the change cannot be undone.") var yes = false
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var piccKey: DESFirePICCKeyOptions

    func validate() throws {
      guard setting != nil || disableFormat else { throw ValidationError("say what to turn on: random-uid, --disable-format or both.") }
    }

    /// The bits asked for.
    var asked: DESFirePICCConfiguration {
      var flags: DESFirePICCConfiguration = []
      if setting == .randomUID { flags.insert(.randomUID) }
      if disableFormat { flags.insert(.disableFormat) }
      return flags
    }

    func run(in context: CommandContext) throws {
      let what = [setting.map { _ in "a random UID" }, disableFormat ? "FormatPICC refused" : nil].compactMap { $0 }
        .joined(separator: " and ")
      guard yes else {
        throw CLIFailure(.needsConfirmation("config makes the card show \(what) for good: add --yes; nothing was sent"))
      }
      let authenticate = try piccKey.authentication(in: context)
      let flags = asked
      let (_, realUID) = try withDESFireCardShowingUID(readerOptions, in: context, resetOnRelease: true) {
        card, version throws(DESFireCommandError) -> [UInt8] in
        try card.selectApplication(.picc)
        try authenticate(card, version)
        try card.setConfiguration(flags)
        return try card.cardUID()
      }
      var text = "UID (real):   \(hexString(realUID)) (GetCardUID)\n"
      if flags.contains(.disableFormat) { text += "FormatPICC:   disabled\n" }
      if flags.contains(.randomUID) {
        // The session released the card with a reset: a new activation, which shows a random ID.
        let shown = try TagSession(options: readerOptions, context: context).withTag { tag in tag.identifier }
        text += "UID (shown):  \(hexString(shown))"
          + (isRandomUID(shown) ? " (random: a new one at each activation)\n" : " (not a random ID: the card did not take it)\n")
      }
      writeDESFireOutput(text, in: context)
    }
  }
}

/// ``withDESFireCard(_:in:_:)`` that also gives the UID the reader reported at activation (a
/// random ID on a card that shows one: never its identity); with `resetOnRelease`, the session
/// resets the card when it ends (a new activation for the next session).
func withDESFireCardShowingUID<T: Sendable>(
  _ readerOptions: ReaderOptions, in context: CommandContext, resetOnRelease: Bool = false,
  _ body: @escaping @Sendable (DESFireCard, DESFireVersionInfo) throws(DESFireCommandError) -> T
) throws -> (shownUID: [UInt8], value: T) {
  let (shown, result) = try TagSession(options: readerOptions, context: context).withTag { tag in
    if resetOnRelease { tag.resetCardOnRelease() }
    return (tag.identifier, try tag.withDESFireCard { card throws(DESFireCommandError) -> T in
      try body(card, try identifiedDESFire(card))
    })
  }
  switch result {
  case .success(let value): return (shown, value)
  case .failure(let error): throw desfireFailure(error)
  }
}
