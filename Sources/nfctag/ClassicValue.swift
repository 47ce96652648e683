import NFCTagCLI
import ArgumentParser
import NFCSession
import NFCTags

extension NFCTool {
  /// `nfctag value BLOCK`: a MIFARE Classic value block, read, set, incremented or decremented.
  struct ClassicValue: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "value",
      abstract: "Read, set, increment or decrement a MIFARE Classic value block.",
      discussion: """
        BLOCK is a block number (not block 0, not a sector trailer). Without an option the block's \
        value is read; --init writes the block as a value block holding N (its own number as the \
        address byte), read back; --increment and --decrement change it by N with the card's \
        INCREMENT or DECREMENT and TRANSFER into the same block. Each sector is opened with the \
        first key its access bits allow for the operation: key A, then key B, of the well-known \
        keys and those of --keys FILE. The value after the operation is printed. \
        On a card with a MIFARE Application Directory, --init first reads it (sector 0: one \
        authentication and three reads) and refuses, with 64 and nothing written, a block of the \
        directory's own sectors (0, and 16 on a 4K) or of a sector it gives to an application \
        (NDEF, AID 03E1, or any other that is not free), unless --yes is given; a card without \
        one is not checked. --increment and --decrement are not checked: they change only a \
        block that is a value block already, which the directory and NDEF data are not. See \
        mifare-classic.md in the documentation folder.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Argument(help: "The block number.") var block: Int
    // .unconditional: the word after the option is its value, so that `--init -5` is -5 and
    // `--increment -5` a range error, not "Missing value".
    @Option(name: .customLong("init"), parsing: .unconditional, help: "Write the block as a value block holding N (a signed 32-bit number).")
    var initial: Int32?
    @Option(parsing: .unconditional, help: "Add N (0 to 2147483647) with INCREMENT and TRANSFER.") var increment: Int64?
    @Option(parsing: .unconditional, help: "Subtract N (0 to 2147483647) with DECREMENT and TRANSFER.") var decrement: Int64?
    @Flag(help: "Confirm that --init may overwrite a block the MIFARE Application Directory gives to itself or to an application.")
    var yes = false

    func validate() throws {
      guard [initial != nil, increment != nil, decrement != nil].filter({ $0 }).count <= 1 else {
        throw ValidationError("give at most one of --init, --increment and --decrement.")
      }
      if yes && initial == nil { throw ValidationError("--yes confirms what --init overwrites: add --init.") }
      guard block > 0 else { throw ValidationError("block 0 (the manufacturer block) holds no value.") }
      for (option, amount) in [("--increment", increment), ("--decrement", decrement)] {
        if let amount, !(0...Int64(Int32.max)).contains(amount) { throw ValidationError("\(option) must be 0 to 2147483647.") }
      }
    }

    func run(in context: CommandContext) throws {
      let (block, initial, increment, decrement, yes) = (block, initial, increment, decrement, yes)
      let value = try TagSession(options: readerOptions, context: context).withTag { tag -> Int32 in
        if let initial {
          if !yes { try Self.refuseClaimedSector(of: block, on: tag) }
          try tag.initializeMIFAREClassicValue(initial, block: block)
          return initial
        }
        // validate() kept both amounts within 0...Int32.max.
        if let increment { return try tag.changeMIFAREClassicValue(block: block, .increment(UInt32(clamping: increment))).value }
        if let decrement { return try tag.changeMIFAREClassicValue(block: block, .decrement(UInt32(clamping: decrement))).value }
        return try tag.mifareClassicValue(block: block).value
      }
      let out = StandardOutput(context.output)
      out.write("\(value)\n")
      out.flush()
    }

    /// Throws the usage refusal when the card's MAD gives the sector of `block` to itself or to
    /// an application, or cannot be trusted; a card without a MAD passes.
    static func refuseClaimedSector(of block: Int, on tag: any NFCNDEFTag) throws {
      let claim: MIFAREClassicSectorClaim?
      do {
        claim = try tag.mifareClassicSectorClaim(ofBlock: block)
      } catch {
        guard case .malformed? = error.underlyingError as? TagError else { throw error }
        throw CLIFailure(.needsConfirmation("block \(block): \(error.message); what it gives the block's sector is unknown: "
                                            + "add --yes to write it anyway; nothing was written"))
      }
      guard let claim else { return }
      throw CLIFailure(.needsConfirmation("block \(block) is in \(claim): add --yes to overwrite it; nothing was written"))
    }
  }
}
