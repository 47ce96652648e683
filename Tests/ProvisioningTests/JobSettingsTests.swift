import Testing
@testable import Provisioning

@Suite("Job settings") struct JobSettingsTests {
  @Test func encodedAndDecodedAlike() throws {
    let all = [
      JobSettings(kind: .url, template: "https://e.com/{id}?m={mirror}", mirror: .uidAndCounter, protect: true,
                  protectReads: true, lock: true),
      JobSettings(kind: .text, template: "Asset \"{n:04}\"\n😀"),
      JobSettings(kind: .message, template: #"{"records":[{"uri":"https://e.com/{id}"}]}"#),
    ]
    for settings in all { #expect(JobSettings(decoding: settings.encoded) == settings) }
    #expect(all[1].encoded == #"{"template":"text","source":"Asset \"{n:04}\"\n😀","mirror":null,"protect":false,"protectReads":false,"lock":false}"#)
    #expect(JobSettings(decoding: "not json") == nil)
    #expect(JobSettings(decoding: #"{"template":"url"}"#) == nil)
  }

  @Test func differencesAreNamedInTheCommandLinesWords() {
    let started = JobSettings(kind: .url, template: "https://e.com/{id}", mirror: .uid, protect: true)
    #expect(started.differences(from: started).isEmpty)
    let now = JobSettings(kind: .text, template: "Asset {n}", lock: true)
    #expect(now.differences(from: started) == [
      "the job was started with --url 'https://e.com/{id}', this run has --text 'Asset {n}'",
      "the job was started with --mirror uid, this run has no --mirror",
      "the job was started with --protect, this run has none",
      "the job was started without --lock, this run has it",
    ])
    let message = JobSettings(kind: .message, template: "{}")
    #expect(JobSettings(kind: .message, template: "{ }").differences(from: message)
            == ["the job was started with another --message template (its JSON differs from this run's)"])
    #expect(now.differences(from: nil) == ["the job was started with settings this nfctag cannot read"])
    // A template that could break the line is shown on one line, and a long one is cut.
    let long = JobSettings(kind: .url, template: "https://e.com/\u{1B}[2J" + String(repeating: "x", count: 100))
    let line = long.differences(from: started)[0]
    #expect(!line.contains("\u{1B}") && line.contains("…"), "\(line)")
  }
}
