import Testing

/// `write -v` on a Type 4 tag says the order the write takes: NLEN 0000, the data, NLEN, whatever
/// the message's size; one command only on a chip GetVersion named as protecting a single-frame
/// write (docs/tag-types.md, "Type 4"), never "when it fits".
@Suite struct Type4WritePlanCLITests {
  @Test func thePlanNamesTheThreeStepOrder() throws {
    let write = try runTool(["write", "text", "hello", "-v", "--reader", "sim:type4"])
    #expect(write.status == 0, "\(write.stderr)")
    #expect(write.stderr.contains("tear-safe: NLEN 0000 first, the data in chunks, then NLEN (one UPDATE BINARY within one "
                                  + "frame on an NTAG 424 DNA named by GetVersion); read back after"), "\(write.stderr)")
    #expect(!write.stderr.contains("when it fits"), "\(write.stderr)")
  }
}
