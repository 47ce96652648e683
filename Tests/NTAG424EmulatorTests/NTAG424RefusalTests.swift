import NFCEmulator
import Testing
@testable import NTAG424Emulator

/// The card's side of `91 AD`, LRP mode and long reads, frame by frame (NT4H2421Gx datasheet §9,
/// Tables 19, 23, 27 and 79).
@Suite struct NTAG424RefusalTests {
  /// A delay asked for by a test: `91 AD` that many times, then the challenge.
  @Test func theAuthenticationDelayHook() throws {
    let tag = try NTAG424DNAVirtualTag()
    #expect(tag.selectApplication() == hex424("9000"))
    #expect(tag.send("9071000002000000") != hex424("91AD"))    // no delay unless asked
    tag.testAuthenticationDelays = 2
    #expect(tag.send("9071000002000000") == hex424("91AD"))
    #expect(tag.send("9071000002000000") == hex424("91AD"))
    let challenge = tag.send("9071000002000000")
    #expect(challenge.count == 18 && challenge.suffix(2) == hex424("91AF"))
    #expect(tag.testAuthenticationDelays == 0)
  }

  /// LRP mode: AES refused with `91 9D` (Table 19), LRP's part 1 answered AuthMode 01h and RndB
  /// (Table 38); its part 2 is not modelled.
  @Test func lrpMode() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testLRPMode = true
    #expect(tag.selectApplication() == hex424("9000"))
    #expect(tag.send("9071000002000000") == hex424("919D"))                 // LenCap 0: AES
    #expect(tag.send("907100000300010000") == hex424("919D"))               // PCDCap2.1 = 00h: AES
    let lrp = tag.send("907100000300010200")                                // PCDCap2.1 = 02h: LRP
    #expect(lrp.count == 19 && lrp.first == 0x01 && lrp.suffix(2) == hex424("91AF"))
    #expect(tag.send("90AF000020" + String(repeating: "00", count: 32) + "00") == hex424("911C"))
  }

  /// An AES tag asked for LRP answers the AES challenge, so the host may fall back (Table 19).
  @Test func anAESTagAskedForLRPAnswersAES() throws {
    let tag = try NTAG424DNAVirtualTag()
    #expect(tag.selectApplication() == hex424("9000"))
    let answer = tag.send("907100000300010200")
    #expect(answer.count == 18 && answer.suffix(2) == hex424("91AF"))
  }

  /// Plain: the whole NDEF file is one answer of 256 bytes; no `91 AF` chain follows it.
  @Test func aPlainReadOfTheWholeNDEFFileIsOneAnswer() throws {
    let tag = try NTAG424DNAVirtualTag()
    #expect(tag.selectApplication() == hex424("9000"))
    let answer = tag.send("90AD000007 02 000000 000000 00")
    #expect(answer.count == 258 && answer.suffix(2) == hex424("9100"))
  }
}
