import Testing

/// `write url` and `ndef encode url` (one grammar, MessageKinds' URLKind): a URI holds no control
/// characters and no spaces (RFC 3986 §2). Run as the real binary: these are its outputs.
@Suite struct URLArgument {
  @Test func aControlCharacterIsRefusedOnOneLine() throws {
    for url in ["https://e.com/a\nb", "https://e.com/\u{1B}[2J", "https://e.com/\u{85}"] {
      let r = try runTool(["ndef", "encode", "url", url])
      #expect(r.status == 65, "\(url.debugDescription)")
      #expect(r.stderr.hasPrefix("nfctag: the URL holds a control character (U+"), "\(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
      #expect(r.stdout.isEmpty)
    }
    // write refuses it before looking for a reader or a tag.
    let write = try runTool(["write", "url", "https://e.com/a\tb", "--reader", "no such reader"])
    #expect(write.status == 65, "\(write.stderr)")
  }

  @Test func aSpaceIsWrittenWithAWarning() throws {
    let r = try runTool(["ndef", "encode", "url", "https://e.com/a b"])
    #expect(r.status == 0)
    #expect(r.stderr.contains("warning: 'https://e.com/a b' holds a space"), "\(r.stderr)")
    #expect(!r.stdout.isEmpty)
    #expect(try runTool(["ndef", "encode", "url", "https://e.com/a%20b"]).stderr.isEmpty)
  }
}
