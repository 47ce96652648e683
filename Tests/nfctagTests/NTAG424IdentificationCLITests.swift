import Foundation
import Testing

/// One identification of an NTAG 424 DNA for every command (NT4H2421Gx datasheet §10.5.2):
/// GetVersion's hardware vendor, type and subtype name the chip; an ATS and a CC that look like
/// a 424 DNA's do not. The virtual Type 4 tag shows the 424 DNA's ATS and CC but takes no native
/// command: `info` does not call it a 424 DNA, and says why in the words `keys` and `sdm setup`
/// refuse it with.
@Suite struct NTAG424IdentificationCLITests {
  static let refusal = "not an NTAG 424 DNA: GetVersion answered 6e00"

  /// The `chip:` line's value.
  static func chip(_ text: String) -> String? {
    text.split(separator: "\n").first { $0.hasPrefix("chip:") }.map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }
  }

  @Test func infoAndTheKeyCommandsAgreeOnAType4Tag() throws {
    registerVirtualNTAG424()
    let info = try runTool(["info", "--reader", "sim:type4", "--timeout", "5"])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(!info.stdout.contains("NTAG 424 DNA ("), "\(info.stdout)")
    #expect(Self.chip(info.stdout) == "Type 4 tag (mapping version 2.0) (Type 4)", "\(info.stdout)")
    #expect(info.stdout.contains(Self.refusal), "\(info.stdout)")
    let versions = try runTool(["keys", "versions", "--reader", "sim:type4", "--timeout", "5"])
    #expect(versions.status == 65, "\(versions.stderr)")
    #expect(versions.stderr == "nfctag: \(Self.refusal)\n", "\(versions.stderr)")
    let setup = try runTool(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", "sim:type4",
                             "--timeout", "5", "--quiet"])
    #expect(setup.status == 65, "\(setup.stderr)")
    #expect(setup.stderr.hasSuffix("nfctag: \(Self.refusal)\n"), "\(setup.stderr)")
  }

  /// The virtual 424 DNA is one, for `info` and `keys` alike.
  @Test func infoAndKeysAgreeOnA424DNA() throws {
    registerVirtualNTAG424()
    let info = try runTool(["info", "--reader", "sim:ntag424dna", "--timeout", "5"])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(Self.chip(info.stdout) == "NTAG 424 DNA (Type 4)", "\(info.stdout)")
    #expect(!info.stdout.contains("not an NTAG 424 DNA"))
    #expect(try runTool(["keys", "versions", "--reader", "sim:ntag424dna", "--timeout", "5"]).status == 0)
  }
}
