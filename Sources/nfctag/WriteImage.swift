import NFCTagCLI
import ArgumentParser
import NFCSession
import NFCTags

/// `nfctag write image FILE`: a `dump --memory --format raw` image written back onto a tag of the
/// same chip (cloning a tag), through the platforms' memory restore.
struct WriteImageCommand: ToolCommand {
  static let configuration = CommandConfiguration(
    commandName: "image",
    abstract: "Write a memory image (`dump --memory --format raw`) back onto a tag of the same chip.",
    discussion: """
      Writes the user memory (Type 2: pages 4 to the last user page; Type 1: blocks 1-C and the \
      dynamic blocks; Type 3: the user blocks; Type 5: the user blocks, CC included), skipping \
      pages that already hold the image's bytes, in tear-safe order (the NDEF length last), and \
      reads it back. A different chip or image size is refused. UID, lock, OTP, CC (Type 2), \
      configuration and password areas are left alone unless --all is given; what the chip then \
      makes permanent (lock bits, OTP, a CC change, CFGLCK, a FeliCa MC) needs --yes. Type 4 tags \
      are not memory-mapped: use `nfctag write ndef`.
      """)

  /// The largest image any supported tag has (a Type 3 tag with 65,536 blocks of 16 bytes).
  static let largestImage = 1 << 20

  @Argument(help: "The image: raw bytes as `dump --memory --format raw` writes them, or - for stdin.") var file: String
  @OptionGroup var readerOptions: ReaderOptions
  @Flag(help: "Also write the lock, OTP, CC (Type 2), configuration and password areas, as far as the chip lets them change.")
  var all = false
  @Flag(help: "Confirm the permanent changes --all would make (lock bits, OTP, CC, CFGLCK).") var yes = false
  @Flag(help: "Do not read the memory back after writing.") var noVerify = false

  func validate() throws {
    if yes && !all { throw ValidationError("--yes confirms what --all writes: add --all.") }
  }

  func run(in context: CommandContext) throws {
    readerOptions.configureConsole(in: context)
    let image = try readInputOrFail(file, in: context)
    guard !image.isEmpty, image.count <= Self.largestImage else {
      throw CLIFailure(.malformedInput(image.isEmpty ? "the image is empty"
                                       : "the image has \(image.count) bytes, more than any tag's memory"))
    }
    let (all, yes, verify) = (all, yes, !noVerify)
    let plan = try TagSession(options: readerOptions, context: context).withTag { tag -> MemoryRestorePlan in
      if tag.platformType == .type4 {
        throw CLIFailure(.unsupported("a Type 4 tag is not memory-mapped (its message lives in a file): "
                                      + "write the message with `nfctag write ndef` instead"))
      }
      let plan = try tag.planMemoryRestore(image: image, includingSystemAreas: all)
      describe(plan, verify: verify, on: context.console)
      let permanent = plan.permanentChanges
      if !permanent.isEmpty && !yes {
        throw CLIFailure(.needsConfirmation("--all would change \(permanent.joined(separator: ", ")) for ever "
                                            + "(lock, OTP, CC or configuration lock): add --yes to confirm; nothing was written"))
      }
      try tag.restoreMemory(plan, verify: verify)
      return plan
    }
    for note in plan.notes { context.console.notice("note: \(note)") }
    let writes = "\(plan.writes.count) \(plan.unitName) write\(plan.writes.count == 1 ? "" : "s")"
    context.console.notice("restored the image: \(writes) (\(plan.byteCount) bytes)\(verify && !plan.writes.isEmpty ? ", verified" : "")"
                   + "; \(plan.unchanged) \(plan.unitName)s already equal")
  }

  /// With --verbose: the plan before it is carried out.
  private func describe(_ plan: MemoryRestorePlan, verify: Bool, on console: Console) {
    guard console.isVerbose else { return }
    console.info("plan: \(plan.platform.displayName) \(sanitizeLine(plan.chip)): \(plan.scope)")
    console.info("plan: \(plan.writes.count) \(plan.unitName) writes (\(plan.byteCount) bytes), \(plan.unchanged) "
                 + "\(plan.unitName)s already equal; order: \(plan.order)\(verify ? "; read back after" : "")")
    let permanent = plan.permanentChanges
    if !permanent.isEmpty { console.info("plan: permanent: \(permanent.joined(separator: ", "))") }
  }
}
