import CPCSC
import Testing
@testable import PCSC

/// `SCardControl` through the seam: the code number becomes the platform's `SCARD_CTL_CODE`
/// (pcsc-lite `reader.h`: `0x42000000 + code`), the answer comes back as it is, and a refusal is a
/// `PCSCFailure` naming `SCardControl` and the reader.
@Suite struct ControlThroughTheSeam {
  @Test func theCodeIsPcscLitesControlCodeAndTheAnswerComesBack() throws {
    let calls = ScriptedCalls()
    calls.controlReply = .success([0xE1, 0x00, 0x00, 0x00, 0x01, 0x02])
    let reader = try PCSCContext(calls: calls).connect(reader: "ACS ACR1252 Dual Reader 00 00", share: .direct, protocols: .undefined)
    #expect(try reader.control(code: 3500, [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02]) == [0xE1, 0x00, 0x00, 0x00, 0x01, 0x02])
    #if os(Linux)
    #expect(calls.lastControl?.code == 0x4200_0DAC)  // SCARD_CTL_CODE(3500)
    #endif
    #expect(calls.lastControl?.code == CPCSC_ctlCode(3500))
    #expect(calls.lastControl?.input == [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02])
  }

  @Test func aRefusalNamesTheCallAndTheReader() throws {
    let calls = ScriptedCalls()
    calls.controlReply = .failure(.notTransacted)
    let reader = try PCSCContext(calls: calls).connect(reader: "r", share: .direct, protocols: .undefined)
    let result = Result { () throws(PCSCFailure) in try reader.control(code: 1, [0xE0, 0x00, 0x00, 0x18, 0x00]) }
    guard case .failure(let failure) = result else { Issue.record("no failure"); return }
    #expect(failure.error == .notTransacted && failure.operation == "SCardControl" && failure.reader == "r")
  }
}
