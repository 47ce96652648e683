import Testing
@testable import nfctag

/// What `send` says of an ISO 15693 answer (ISO/IEC 15693-3 §7.4): the same reading as the tag
/// platform and the reader link, through ``ISO15693Response``.
@Suite struct ISO15693AnswerMeaningTests {
  @Test func namesEveryShape() {
    #expect(iso15693AnswerMeaning([]) == "")
    #expect(iso15693AnswerMeaning([0x00]) == "ok")
    #expect(iso15693AnswerMeaning([0x00, 0xE1, 0x40]) == "ok")
    #expect(iso15693AnswerMeaning([0x01, 0x12]) == "error 12h: block locked, its content cannot be changed")
    #expect(iso15693AnswerMeaning([0x01, 0xA7]) == "error a7h: custom error code")
    #expect(iso15693AnswerMeaning([0x01]) == "malformed: the error flag without an error code")
  }
}
