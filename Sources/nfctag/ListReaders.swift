import NFCTagCLI
import ArgumentParser
import NFCReaders
import PCSC

extension NFCTool {
  /// `nfctag readers`: the PC/SC readers, with whether a card is present, which model each is
  /// (told by its answers to escapes, its name only as a hint) and what that model can do.
  struct ListReaders: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "readers", abstract: "List the PC/SC readers, each with its model and what it can do.",
      discussion: """
        The model is told by what the reader answers to ACS's firmware escape or the ACR122U's \
        (SCardControl on a direct connection, no tag needed); when the driver refuses escapes, by \
        its name ("by its name"). readers.md has the table of readers, tag families and commands.
        """)
    @OptionGroup var output: FormatOption

    func run(in context: CommandContext) throws {
      let pcsc = try PCSCContext()
      let readers = try pcsc.listReaders()
      var states = readers.map { ReaderState(reader: $0) }
      if !states.isEmpty { try? pcsc.waitForStatusChange(&states, timeoutMilliseconds: 0) }
      let present = states.map { $0.flags.contains(.present) }
      let identified = ReaderEnvironment.gather(readers: readers, context: pcsc).readers.map(\.identification)
      let out = StandardOutput(context.output)
      if output.isJSON {
        let items = readers.enumerated().map { index, name in
          var o = JSONObjectWriter()
          o.number("index", index)
          o.string("name", name)
          o.bool("card", present[index])
          readerJSON(identified[index], into: &o)
          return o.finish()
        }
        var o = JSONObjectWriter()
        o.array("readers", items)
        out.write(o.finish() + "\n")
      } else {
        for (index, name) in readers.enumerated() {
          out.write("\(index)  \(sanitizeLine(name))\(present[index] ? "  (card present)" : "")\n")
          let id = identified[index]
          out.write("   \(sanitizeLine(id.description))\(id.model.map { ": " + $0.capabilities.summary } ?? "")\n")
        }
      }
      out.flush()
      if readers.isEmpty && !output.isJSON {
        throw cliFailure(for: PollError.noReader("no reader found"))
      }
    }
  }
}

/// A reader's model and capabilities as `readers --json` members: `model` (nil-less: omitted when
/// unknown), `identifiedBy` ("firmware", "name" or "nothing"), `firmware`, `capabilities`.
func readerJSON(_ id: ReaderIdentification, into o: inout JSONObjectWriter) {
  switch id.evidence {
  case .firmware(let text, _):
    o.string("identifiedBy", "firmware")
    o.string("firmware", text)
  case .nameOnly: o.string("identifiedBy", "name")
  case .unknown: o.string("identifiedBy", "nothing")
  }
  guard let model = id.model else { return }
  o.string("model", model.rawValue)
  let c = model.capabilities
  var caps = JSONObjectWriter()
  func optional(_ key: String, _ value: Bool?) {
    if let value { caps.bool(key, value) } else { caps.raw(key, "null") }
  }
  caps.string("directTransmit", c.directTransmit.rawValue)
  optional("transparentExchange", c.transparentExchange)
  optional("felica", c.felica)
  optional("iso15693", c.iso15693)
  optional("type1", c.type1)
  caps.string("keyLoading", c.keyLoading.rawValue)
  caps.string("type2ReadBinary", c.type2ReadBinary.rawValue)
  caps.string("signalling", c.signalling.rawValue)
  o.raw("capabilities", caps.finish())
}
