import ArgumentParser
import Testing
@testable import nfctag
import NFCTagCLI
import NFCTagEmulate

/// `HexBytes`, the hex option type: the bytes of what people paste, and a command line with text
/// that is not hex refused while it is parsed, in one line naming the option.
@Suite struct HexBytesTests {
  @Test func readsHexAsPeoplePasteIt() {
    #expect(HexBytes(argument: "04112233445566")?.bytes == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    #expect(HexBytes(argument: "be:EF")?.bytes == [0xBE, 0xEF])
    #expect(HexBytes(argument: "0xbe 0xef")?.bytes == [0xBE, 0xEF])
    #expect(HexBytes([0, 0]).defaultValueDescription == "0000")
  }

  @Test(arguments: ["zz", "abc", "beef!", "0xg1"])
  func refusesWhatIsNotHex(text: String) {
    #expect(HexBytes(argument: text) == nil)
  }

  @Test func theOptionHoldsTheBytes() throws {
    let set = try NFCTool.Password.Set.parse(["--new-password-env", "PWD", "--pack", "be ef"])
    #expect(set.pack.bytes == [0xBE, 0xEF])
    let emulate = try EmulateCommand.parse(["--tag", "ntag215", "--uid", "04:11:22:33:44:55:66"])
    #expect(emulate.uid?.bytes == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
  }

  @Test func aBadValueIsOneLineNamingTheOption() {
    do {
      _ = try NFCTool.Password.Set.parse(["--new-password-env", "PWD", "--pack", "zz"])
      Issue.record("--pack zz was taken")
    } catch {
      let message = NFCTool.Password.Set.message(for: error)
      #expect(message == "The value 'zz' is invalid for '--pack <pack>'", "\(message)")
      #expect(NFCTool.Password.Set.exitCode(for: error) == .validationFailure)
    }
  }
}
