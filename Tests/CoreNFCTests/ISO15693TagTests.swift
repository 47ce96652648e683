import CoreNFC
import Foundation
import Testing

// NFCISO15693Tag's commands on the simulator's ICODE SLIX2 (80 blocks of 4 bytes, IC reference
// 01h, UID E0 04 01 08 A1 B2 C3 D4): Core NFC code, with `import CoreNFC` only.

private let slix2 = "sim:icode-slix2"

extension NFCTag {
  var iso15693: (any NFCISO15693Tag)? {
    if case .iso15693(let tag) = self { return tag }
    return nil
  }
}

struct NotISO15693: Error {}

@Suite struct CoreNFCISO15693TagTests {
  @Test func blocksWrittenAreReadBack() async throws {
    let (single, multiple, withStatus) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      try await tag.writeSingleBlock(requestFlags: .highDataRate, blockNumber: 10, dataBlock: Data([0xDE, 0xAD, 0xBE, 0xEF]))
      let single = try await tag.readSingleBlock(requestFlags: .highDataRate, blockNumber: 10)
      let multiple = try await tag.readMultipleBlocks(requestFlags: .highDataRate, blockRange: NSRange(location: 9, length: 3))
      // The Option flag: the block security status (00h, unlocked) before the block's bytes.
      let withStatus = try await tag.readSingleBlock(requestFlags: [.highDataRate, .option], blockNumber: 10)
      return (single, multiple, withStatus)
    }
    #expect(single == Data([0xDE, 0xAD, 0xBE, 0xEF]))
    #expect(multiple == [Data(count: 4), Data([0xDE, 0xAD, 0xBE, 0xEF]), Data(count: 4)])
    #expect(withStatus == Data([0x00, 0xDE, 0xAD, 0xBE, 0xEF]))
  }

  @Test func completionHandlersRunOnTheSessionQueueWithTheBlock() async throws {
    let (block, error, onMain) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      // Block 0 holds the factory CC: E1 40 27 01.
      return await withCheckedContinuation { continuation in
        tag.readSingleBlock(requestFlags: .highDataRate, blockNumber: 0) { (data: Data, error: Error?) in
          continuation.resume(returning: (data, error.map { "\($0)" }, Thread.isMainThread))
        }
      }
    }
    #expect(block == Data([0xE1, 0x40, 0x27, 0x01]))
    #expect(error == nil)
    #expect(!onMain)
  }

  @Test func systemInformationGivesTheTagsValues() async throws {
    let (legacy, info, identity) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let legacy = await withCheckedContinuation { continuation in
        tag.getSystemInfo(requestFlags: .highDataRate) { dsfid, afi, blockSize, blocks, icReference, error in
          continuation.resume(returning: [dsfid, afi, blockSize, blocks, icReference, error == nil ? 0 : 1])
        }
      }
      let info = try await tag.systemInfo(requestFlags: [.highDataRate])
      return (legacy, info, (tag.identifier, tag.icManufacturerCode, tag.icSerialNumber))
    }
    // DSFID 00, AFI 00, 4-byte blocks, 80 blocks, IC reference 01, no error.
    #expect(legacy == [0, 0, 4, 80, 1, 0])
    #expect(info.blockSize == 4 && info.totalBlocks == 80 && info.icReference == 1)
    #expect(info.dataStorageFormatIdentifier == 0 && info.applicationFamilyIdentifier == 0)
    #expect(info.uniqueIdentifier == Data([0xE0, 0x04, 0x01, 0x08, 0xA1, 0xB2, 0xC3, 0xD4]))
    #expect(identity.0 == info.uniqueIdentifier)
    #expect(identity.1 == 0x04)  // NXP
    #expect(identity.2 == Data([0x01, 0x08, 0xA1, 0xB2, 0xC3, 0xD4]))
  }

  @Test func aBlockPastTheEndIsTheTagsError10h() async throws {
    let (single, multiple, range) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let single = await failure { _ = try await tag.readSingleBlock(requestFlags: .highDataRate, blockNumber: 80) }
      let multiple = await failure {
        _ = try await tag.readMultipleBlocks(requestFlags: .highDataRate, blockRange: NSRange(location: 78, length: 3))
      }
      // Past block 255: refused before anything is sent.
      let range = await failure {
        _ = try await tag.readMultipleBlocks(requestFlags: .highDataRate, blockRange: NSRange(location: 255, length: 2))
      }
      return (single, multiple, range)
    }
    #expect(single.code == .readerTransceiveErrorTagResponseError && single.iso15693 == 0x10)
    #expect(multiple.code == .readerTransceiveErrorTagResponseError && multiple.iso15693 == 0x10)
    #expect(range.code == .readerErrorInvalidParameter && range.iso15693 == nil)
  }

  @Test func aLockedBlockRefusesWritesAndStaysReadable() async throws {
    let (refused, relock, readBack) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      try await tag.writeSingleBlock(requestFlags: .highDataRate, blockNumber: 20, dataBlock: Data([1, 2, 3, 4]))
      try await tag.lockBlock(requestFlags: .highDataRate, blockNumber: 20)
      let refused = await failure {
        try await tag.writeSingleBlock(requestFlags: .highDataRate, blockNumber: 20, dataBlock: Data([5, 6, 7, 8]))
      }
      let relock = await failure { try await tag.lockBlock(requestFlags: .highDataRate, blockNumber: 20) }
      return (refused, relock, try await tag.readSingleBlock(requestFlags: .highDataRate, blockNumber: 20))
    }
    #expect(refused.code == .readerTransceiveErrorTagResponseError && refused.iso15693 == 0x12)  // locked
    #expect(relock.iso15693 == 0x11)  // already locked
    #expect(readBack == Data([1, 2, 3, 4]))
  }

  @Test func writeMultipleBlocksIsTheTagsToRefuse() async throws {
    // The ICODE SLIX2 has no WRITE MULTIPLE BLOCKS (24h): error 01h, and the blocks keep their bytes.
    let (refused, mismatched, blocks) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let range = NSRange(location: 30, length: 2)
      let refused = await failure {
        try await tag.writeMultipleBlocks(requestFlags: .highDataRate, blockRange: range, dataBlocks: [Data([1, 1, 1, 1]), Data([2, 2, 2, 2])])
      }
      let mismatched = await failure {
        try await tag.writeMultipleBlocks(requestFlags: .highDataRate, blockRange: range, dataBlocks: [Data([1, 1, 1, 1])])
      }
      return (refused, mismatched, try await tag.readMultipleBlocks(requestFlags: .highDataRate, blockRange: range))
    }
    #expect(refused.code == .readerTransceiveErrorTagResponseError && refused.iso15693 == 0x01)
    #expect(mismatched.code == .readerErrorInvalidParameter)
    #expect(blocks == [Data(count: 4), Data(count: 4)])
  }

  @Test func aQuietTagStillAnswersAddressedCommands() async throws {
    // STAY QUIET has no answer; Core NFC's commands are addressed, which a quiet tag still takes.
    let block = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      try await tag.stayQuiet()
      return try await tag.readSingleBlock(requestFlags: .highDataRate, blockNumber: 0)
    }
    #expect(block == Data([0xE1, 0x40, 0x27, 0x01]))
  }

  @Test func requestFlagsAreCoreNFCsBits() {
    #expect(RequestFlag.dualSubCarriers.rawValue == 0x01 && RequestFlag.highDataRate.rawValue == 0x02)
    #expect(RequestFlag.protocolExtension.rawValue == 0x08 && RequestFlag.select.rawValue == 0x10)
    #expect(RequestFlag.address.rawValue == 0x20 && RequestFlag.option.rawValue == 0x40)
    #expect(RequestFlag.commandSpecificBit8.rawValue == 0x80)
    #expect(NFCISO15693RequestFlag([.highDataRate, .address]).rawValue == 0x22)
  }
}

@Suite struct CoreNFCISO15693StateTests {
  @Test func selectFlagCommandsReachTheSelectedTagOnly() async throws {
    let (before, selected, afterReset) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let flags: NFCISO15693RequestFlag = [.highDataRate, .select]
      // Not selected yet: a Select-flag command gets no answer.
      let before = await failure { _ = try await tag.readSingleBlock(requestFlags: flags, blockNumber: 0) }.code
      try await tag.select(requestFlags: .highDataRate)
      let selected = try await tag.readSingleBlock(requestFlags: flags, blockNumber: 0)
      try await tag.resetToReady(requestFlags: .highDataRate)
      let afterReset = await failure { _ = try await tag.readSingleBlock(requestFlags: flags, blockNumber: 0) }.code
      return (before, selected, afterReset)
    }
    #expect(before == .readerTransceiveErrorTagConnectionLost)
    #expect(selected == Data([0xE1, 0x40, 0x27, 0x01]))
    #expect(afterReset == .readerTransceiveErrorTagConnectionLost)
  }

  @Test func afiAndDSFIDAreWrittenThenLocked() async throws {
    let (info, afiLocked, dsfidRelocked) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      try await tag.writeAFI(requestFlags: .highDataRate, afi: 0x42)
      try await tag.writeDSFID(requestFlags: .highDataRate, dsfid: 0x07)
      let info = try await tag.systemInfo(requestFlags: .highDataRate)
      try await tag.lockAFI(requestFlags: .highDataRate)
      let afiLocked = await failure { try await tag.writeAFI(requestFlags: .highDataRate, afi: 0x43) }.iso15693
      try await tag.lockDFSID(requestFlags: .highDataRate)
      let dsfidRelocked = await failure { try await tag.lockDFSID(requestFlags: .highDataRate) }.iso15693
      return (info, afiLocked, dsfidRelocked)
    }
    #expect(info.applicationFamilyIdentifier == 0x42 && info.dataStorageFormatIdentifier == 0x07)
    #expect(afiLocked == 0x12)      // locked
    #expect(dsfidRelocked == 0x11)  // already locked
  }

  @Test func customCommandsCarryTheManufacturerCode() async throws {
    // The simulated SLIX2 answers NXP's custom commands with error 01h (not supported): an answer,
    // so the frame reached it with the manufacturer code (04h) where the tag looks for it.
    let (refused, outOfRange) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let refused = await failure {
        _ = try await tag.customCommand(requestFlags: .highDataRate, customCommandCode: 0xAB, customRequestParameters: Data())
      }
      let outOfRange = await failure {
        _ = try await tag.customCommand(requestFlags: .highDataRate, customCommandCode: 0x20, customRequestParameters: Data())
      }
      return (refused, outOfRange)
    }
    #expect(refused.code == .readerTransceiveErrorTagResponseError && refused.iso15693 == 0x01)
    #expect(outOfRange.code == .readerErrorInvalidParameter)
  }
}
