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
        keys and those of --keys FILE. The value after the operation is printed. See \
        mifare-classic.md in the documentation folder.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Argument(help: "The block number.") var block: Int
    @Option(name: .customLong("init"), help: "Write the block as a value block holding N (a signed 32-bit number).")
    var initial: Int32?
    @Option(help: "Add N (0 to 2147483647) with INCREMENT and TRANSFER.") var increment: UInt32?
    @Option(help: "Subtract N (0 to 2147483647) with DECREMENT and TRANSFER.") var decrement: UInt32?

    func validate() throws {
      guard [initial != nil, increment != nil, decrement != nil].filter({ $0 }).count <= 1 else {
        throw ValidationError("give at most one of --init, --increment and --decrement.")
      }
      guard block > 0 else { throw ValidationError("block 0 (the manufacturer block) holds no value.") }
      for amount in [increment, decrement].compactMap({ $0 }) where amount > UInt32(Int32.max) {
        throw ValidationError("the amount \(amount) is past 2147483647.")
      }
    }

    func run(in context: CommandContext) throws {
      let (block, initial, increment, decrement) = (block, initial, increment, decrement)
      let value = try TagSession(options: readerOptions, context: context).withTag { tag -> Int32 in
        if let initial {
          try tag.initializeMIFAREClassicValue(initial, block: block)
          return initial
        }
        if let increment { return try tag.changeMIFAREClassicValue(block: block, .increment(increment)).value }
        if let decrement { return try tag.changeMIFAREClassicValue(block: block, .decrement(decrement)).value }
        return try tag.mifareClassicValue(block: block).value
      }
      let out = StandardOutput(context.output)
      out.write("\(value)\n")
      out.flush()
    }
  }
}
