import NFCEmulator
import NFCTransport
import Testing

/// `nfctag emulate --fault KIND@N` (docs/faults.md): the faults a reader face can be given.
@Suite struct FaultInjection {
  @Test func parsesKindAndAPDU() {
    #expect(InjectedFault(parsing: "nak@7") == InjectedFault(.nak, at: 7))
    #expect(InjectedFault(parsing: "slow@3")?.seconds == 10)
    #expect(InjectedFault(parsing: "slow:2.5@3") == InjectedFault(.slow, at: 3, seconds: 2.5))
    #expect(InjectedFault(parsing: "slow:2@3")?.description == "slow:2@3")
    for bad in ["nak", "nak@0", "nak@-1", "bogus@3", "garbage:2@3", "slow:x@3", "slow:601@3", "nak@3@4", "@3", "slow:1:2@3"] {
      #expect(InjectedFault(parsing: bad) == nil, "\(bad)")
    }
  }

  func card(_ faults: [InjectedFault]) throws -> (FaultyCard, Type2VirtualTag) {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let refusing = FaultInjectingTag(tag)
    return (FaultyCard(ACR122UFace(tag: refusing), tag: refusing, faults: faults), tag)
  }

  static let readPage4: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x42, 0x30, 0x04]
  static let writePage4: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x08, 0xD4, 0x42, 0xA2, 0x04, 1, 2, 3, 4]

  @Test func garbageRunsTheCommandAndSpoilsTheAnswer() throws {
    let (faulty, tag) = try card([InjectedFault(.garbage, at: 2)])
    #expect(faulty.transmit(Self.readPage4).suffix(2) == [0x90, 0x00])
    #expect(faulty.transmit(Self.writePage4) == FaultyCard.garbage)
    #expect(Array(tag.memoryImage[16..<20]) == [1, 2, 3, 4])  // the tag ran it
    #expect(faulty.injected == [InjectedFault(.garbage, at: 2)])
  }

  @Test func statusNeverReachesTheTag() throws {
    let (faulty, tag) = try card([InjectedFault(.status, at: 1)])
    #expect(faulty.transmit(Self.writePage4) == [0x6F, 0x00])
    #expect(Array(tag.memoryImage[16..<20]) != [1, 2, 3, 4])
    #expect(faulty.transmit(Self.writePage4).suffix(2) == [0x90, 0x00])  // only the first one
  }

  @Test func nakIsTheTagsRefusalAsTheFaceShowsIt() throws {
    let (faulty, tag) = try card([InjectedFault(.nak, at: 1)])
    // InCommunicateThru: status 00 and the 4-bit NAK 0.
    #expect(faulty.transmit(Self.writePage4) == [0xD5, 0x43, 0x00, 0x00, 0x90, 0x00])
    #expect(Array(tag.memoryImage[16..<20]) != [1, 2, 3, 4])
  }

  @Test func nakToTheReadersOwnAPDUIsAStatus() throws {
    let (faulty, _) = try card([InjectedFault(.nak, at: 1)])
    #expect(faulty.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x6F, 0x00])
  }

  @Test func slowAnswersLate() throws {
    let (faulty, _) = try card([InjectedFault(.slow, at: 1, seconds: 0.2)])
    let clock = ContinuousClock()
    let start = clock.now
    #expect(faulty.transmit(Self.readPage4).suffix(2) == [0x90, 0x00])
    #expect(clock.now - start >= .milliseconds(200))
  }
}
