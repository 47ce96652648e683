import CoreNFC
import Foundation
import Testing

// NFCISO15693Tag's block security status, extended commands, raw request and result-handler
// forms: on the simulator's ICODE SLIX2 (80 blocks of 4 bytes; no extended commands, which it
// refuses with error 01h as the SL2S2602 does), and on a tag answering from a transcript.

private let slix2 = "sim:icode-slix2"
/// The simulated SLIX2's UID as it goes on the air (least significant byte first).
private let slix2AirUID: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 0x08, 0x01, 0x04, 0xE0]

@Suite struct CoreNFCISO15693SecurityStatusTests {
  @Test func blockSecurityStatusShowsTheLockedBlock() async throws {
    let (status, viaResult, pastEnd, pastByte) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      try await tag.lockBlock(requestFlags: .highDataRate, blockNumber: 21)
      let status = try await tag.getMultipleBlockSecurityStatus(requestFlags: .highDataRate,
                                                                blockRange: NSRange(location: 20, length: 3))
      let viaResult = await withCheckedContinuation { continuation in
        tag.getMultipleBlockSecurityStatus(requestFlags: .highDataRate, blockRange: NSRange(location: 21, length: 1)) {
          (result: Result<[Int], Error>) in continuation.resume(returning: try? result.get())
        }
      }
      let pastEnd = await failure {
        _ = try await tag.getMultipleBlockSecurityStatus(requestFlags: .highDataRate, blockRange: NSRange(location: 78, length: 3))
      }
      // Blocks past 255 need the extended form: refused before anything is sent.
      let pastByte = await failure {
        _ = try await tag.getMultipleBlockSecurityStatus(requestFlags: .highDataRate, blockRange: NSRange(location: 250, length: 10))
      }
      return (status.map(\.intValue), viaResult, pastEnd, pastByte)
    }
    #expect(status == [0, 1, 0])  // block 21 locked
    #expect(viaResult == [1])
    #expect(pastEnd.code == .readerTransceiveErrorTagResponseError && pastEnd.iso15693 == 0x10)
    #expect(pastByte.code == .readerErrorInvalidParameter && pastByte.iso15693 == nil)
  }

  @Test func theSLIX2RefusesEveryExtendedCommandWithError01h() async throws {
    let (refusals, outOfRange, block) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let flags = NFCISO15693RequestFlag.highDataRate
      let range = NSRange(location: 10, length: 2)
      let refusals = [
        await failure { _ = try await tag.extendedReadSingleBlock(requestFlags: flags, blockNumber: 10) },
        await failure { try await tag.extendedWriteSingleBlock(requestFlags: flags, blockNumber: 10, dataBlock: Data([9, 9, 9, 9])) },
        await failure { try await tag.extendedLockBlock(requestFlags: flags, blockNumber: 10) },
        await failure { _ = try await tag.extendedReadMultipleBlocks(requestFlags: flags, blockRange: range) },
        await failure {
          try await tag.extendedWriteMultipleBlocks(requestFlags: flags, blockRange: range, dataBlocks: [Data(count: 4), Data(count: 4)])
        },
        await failure { _ = try await tag.extendedGetMultipleBlockSecurityStatus(requestFlags: flags, blockRange: range) },
      ]
      let outOfRange = [
        await failure { _ = try await tag.extendedReadSingleBlock(requestFlags: flags, blockNumber: 65536) }.code,
        await failure { _ = try await tag.extendedReadSingleBlock(requestFlags: flags, blockNumber: -1) }.code,
        await failure {
          _ = try await tag.extendedReadMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 65535, length: 2))
        }.code,
        await failure { try await tag.extendedWriteMultipleBlocks(requestFlags: flags, blockRange: range, dataBlocks: [Data(count: 4)]) }.code,
      ]
      // Nothing was written or locked: the block still takes a plain write.
      try await tag.writeSingleBlock(requestFlags: flags, blockNumber: 10, dataBlock: Data([1, 2, 3, 4]))
      return (refusals, outOfRange, try await tag.readSingleBlock(requestFlags: flags, blockNumber: 10))
    }
    for refusal in refusals {
      #expect(refusal.code == .readerTransceiveErrorTagResponseError && refusal.iso15693 == 0x01)
    }
    #expect(refusals.count == 6)
    #expect(outOfRange == Array(repeating: NFCReaderError.readerErrorInvalidParameter, count: 4))
    #expect(block == Data([1, 2, 3, 4]))
  }
}

@Suite struct CoreNFCISO15693SendRequestTests {
  @Test func sendRequestSendsTheFrameAsGivenAndHandsBackTheFlags() async throws {
    let (read, refused, info, viaResult, badFlags) = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      // Addressed READ SINGLE BLOCK of block 0: the caller gives the UID.
      let read = try await tag.sendRequest(requestFlags: 0x22, commandCode: 0x20, data: Data(slix2AirUID + [0x00]))
      // EXTENDED READ SINGLE BLOCK: the tag's refusal is an answer, flags 01h and the code.
      let refused = try await tag.sendRequest(requestFlags: 0x22, commandCode: 0x30, data: Data(slix2AirUID + [0x00, 0x00]))
      // Not addressed: no UID in the frame.
      let info = try await tag.sendRequest(requestFlags: 0x02, commandCode: 0x2B, data: nil)
      let viaResult = await withCheckedContinuation { continuation in
        tag.sendRequest(requestFlags: 0x02, commandCode: 0x20, data: Data([0x00])) {
          (result: Result<(NFCISO15693ResponseFlag, Data?), Error>) in
          continuation.resume(returning: (try? result.get()).map { [Data([$0.0.rawValue]), $0.1 ?? Data()] })
        }
      }
      let badFlags = await failure { _ = try await tag.sendRequest(requestFlags: 0x100, commandCode: 0x20, data: nil) }
      return (read, refused, info, viaResult, badFlags)
    }
    #expect(read.0 == [] && read.1 == Data([0xE1, 0x40, 0x27, 0x01]))
    #expect(refused.0 == .error && refused.1 == Data([0x01]))
    // 0F: DSFID, AFI, memory size and IC reference; the UID as on the air; 80 blocks of 4 bytes.
    #expect(info.0 == [] && info.1 == Data([0x0F] + slix2AirUID + [0x00, 0x00, 0x4F, 0x03, 0x01]))
    #expect(viaResult == [Data([0x00]), Data([0xE1, 0x40, 0x27, 0x01])])
    #expect(badFlags.code == .readerErrorInvalidParameter)
  }

  @Test func responseFlagsAreISO15693Bits() {
    #expect(NFCISO15693ResponseFlag.error.rawValue == 0x01 && NFCISO15693ResponseFlag.responseBufferValid.rawValue == 0x02)
    #expect(NFCISO15693ResponseFlag.finalResponse.rawValue == 0x04 && NFCISO15693ResponseFlag.protocolExtension.rawValue == 0x08)
    #expect(NFCISO15693ResponseFlag.blockSecurityStatusBit5.rawValue == 0x10)
    #expect(NFCISO15693ResponseFlag.blockSecurityStatusBit6.rawValue == 0x20)
    #expect(NFCISO15693ResponseFlag.waitTimeExtension.rawValue == 0x40)
  }
}

@Suite struct CoreNFCISO15693ResultHandlerTests {
  /// Runs a result-handler form and returns its outcome: nil on success, else the failure.
  private static func outcome<T: Sendable>(_ start: (@escaping (Result<T, Error>) -> Void) -> Void) async -> (value: T?, error: (code: NFCReaderError.Code?, iso15693: Int?)?) {
    await withCheckedContinuation { continuation in
      start { result in
        switch result {
        case .success(let value): continuation.resume(returning: (value, nil))
        case .failure(let error):
          continuation.resume(returning: (nil, ((error as? NFCReaderError)?.code,
                                               (error as NSError).userInfo[NFCISO15693TagResponseErrorKey] as? Int)))
        }
      }
    }
  }

  @Test func resultHandlerFormsRunTheCommands() async throws {
    let results = try await withTag(slix2, .iso15693) { found in
      guard let tag = found.iso15693 else { throw NotISO15693() }
      let flags = NFCISO15693RequestFlag.highDataRate
      let write = await Self.outcome { tag.writeSingleBlock(requestFlags: flags, blockNumber: 12, dataBlock: Data([7, 7, 7, 7]), resultHandler: $0) }
      let read = await Self.outcome { tag.readSingleBlock(requestFlags: flags, blockNumber: 12, resultHandler: $0) }
      let blocks = await Self.outcome { tag.readMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 11, length: 2), resultHandler: $0) }
      let lock = await Self.outcome { tag.lockBlock(requestFlags: flags, blockNumber: 12, resultHandler: $0) }
      let relock = await Self.outcome { tag.lockBlock(requestFlags: flags, blockNumber: 12, resultHandler: $0) }
      let writeMultiple = await Self.outcome {
        tag.writeMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 13, length: 1), dataBlocks: [Data(count: 4)], resultHandler: $0)
      }
      let afi = await Self.outcome { tag.writeAFI(requestFlags: flags, afi: 0x21, resultHandler: $0) }
      let dsfid = await Self.outcome { tag.writeDSFID(requestFlags: flags, dsfid: 0x05, resultHandler: $0) }
      let lockAFI = await Self.outcome { tag.lockAFI(requestFlags: flags, resultHandler: $0) }
      let lockDSFID = await Self.outcome { tag.lockDSFID(requestFlags: flags, resultHandler: $0) }
      let relockDSFID = await Self.outcome { tag.lockDSFID(requestFlags: flags, resultHandler: $0) }
      let select = await Self.outcome { tag.select(requestFlags: flags, resultHandler: $0) }
      let reset = await Self.outcome { tag.resetToReady(requestFlags: flags, resultHandler: $0) }
      let custom = await Self.outcome {
        tag.customCommand(requestFlags: flags, customCommandCode: 0xAB, customRequestParameters: Data(), resultHandler: $0)
      }
      let extended = await Self.outcome { tag.extendedReadSingleBlock(requestFlags: flags, blockNumber: 12, resultHandler: $0) }
      let quiet = await Self.outcome { tag.stayQuiet(resultHandler: $0) }
      let info = try await tag.systemInfo(requestFlags: flags)
      return (write, read, blocks, lock, relock, writeMultiple, (afi, dsfid, lockAFI, lockDSFID, relockDSFID), (select, reset, custom, extended, quiet), info)
    }
    let (write, read, blocks, lock, relock, writeMultiple, identification, state, info) = results
    #expect(write.error == nil && read.value == Data([7, 7, 7, 7]))
    #expect(blocks.value == [Data(count: 4), Data([7, 7, 7, 7])])
    #expect(lock.error == nil && relock.error?.iso15693 == 0x11)
    #expect(writeMultiple.error?.code == .readerTransceiveErrorTagResponseError && writeMultiple.error?.iso15693 == 0x01)
    #expect(identification.0.error == nil && identification.1.error == nil)
    #expect(identification.2.error == nil && identification.3.error == nil && identification.4.error?.iso15693 == 0x11)
    #expect(info.applicationFamilyIdentifier == 0x21 && info.dataStorageFormatIdentifier == 0x05)
    #expect(state.0.error == nil && state.1.error == nil)
    #expect(state.2.error?.iso15693 == 0x01 && state.3.error?.iso15693 == 0x01)
    #expect(state.4.error == nil)  // STAY QUIET: silence is obeying
  }
}

// The extended commands on a tag that takes them, from a transcript: a tag of more than 256
// blocks (UID E0 04 01 08 A1 B2 C3 D4), addressed frames at high data rate (flags 22h).
@Suite struct CoreNFCISO15693ExtendedTranscriptTests {
  static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0xA1, 0xB2, 0xC3, 0xD4]
  static let air: [UInt8] = uid.reversed()

  @Test func extendedCommandsTakeTwoByteBlockNumbers() async throws {
    let air = Self.air
    let (answers, leftOver) = try await onISO15693Transcript(uid: Self.uid, [
      ([0x22, 0x30] + air + [0x2C, 0x01], .success([0x00, 0x11, 0x22, 0x33, 0x44])),                              // EXT READ SINGLE BLOCK 300
      ([0x22, 0x33] + air + [0x2C, 0x01, 0x01, 0x00], .success([0x00, 1, 2, 3, 4, 5, 6, 7, 8])),                  // EXT READ MULTIPLE: 300, 2 blocks
      ([0x22, 0x31] + air + [0x2D, 0x01, 0xAA, 0xBB, 0xCC, 0xDD], .success([0x00])),                              // EXT WRITE SINGLE BLOCK 301
      ([0x22, 0x34] + air + [0x00, 0x02, 0x01, 0x00, 1, 1, 1, 1, 2, 2, 2, 2], .success([0x00])),                  // EXT WRITE MULTIPLE: 512, 2 blocks
      ([0x22, 0x32] + air + [0x2D, 0x01], .success([0x00])),                                                      // EXT LOCK BLOCK 301
      ([0x22, 0x3C] + air + [0x2C, 0x01, 0x02, 0x00], .success([0x00, 0x00, 0x01, 0x00])),                        // EXT GET MULTIPLE BSS: 300, 3 blocks; 301 locked
      ([0x22, 0x3C] + air + [0xFF, 0xFF, 0x00, 0x00], .success([0x01, 0x10])),                                    // block 65535: not available
    ]) {
      try await withTag("transcript", .iso15693) { found in
        guard let tag = found.iso15693 else { throw NotISO15693() }
        let flags = NFCISO15693RequestFlag.highDataRate
        let single = try await tag.extendedReadSingleBlock(requestFlags: flags, blockNumber: 300)
        let multiple = try await tag.extendedReadMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 300, length: 2))
        try await tag.extendedWriteSingleBlock(requestFlags: flags, blockNumber: 301, dataBlock: Data([0xAA, 0xBB, 0xCC, 0xDD]))
        try await tag.extendedWriteMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 512, length: 2),
                                                  dataBlocks: [Data([1, 1, 1, 1]), Data([2, 2, 2, 2])])
        try await tag.extendedLockBlock(requestFlags: flags, blockNumber: 301)
        let status = try await tag.extendedGetMultipleBlockSecurityStatus(requestFlags: flags, blockRange: NSRange(location: 300, length: 3))
        let refused = await failure {
          _ = try await tag.extendedGetMultipleBlockSecurityStatus(requestFlags: flags, blockRange: NSRange(location: 65535, length: 1))
        }
        return (single, multiple, status.map(\.intValue), refused)
      }
    }
    #expect(answers.0 == Data([0x11, 0x22, 0x33, 0x44]))
    #expect(answers.1 == [Data([1, 2, 3, 4]), Data([5, 6, 7, 8])])
    #expect(answers.2 == [0, 1, 0])
    #expect(answers.3.code == .readerTransceiveErrorTagResponseError && answers.3.iso15693 == 0x10)
    #expect(leftOver == .clean)
  }

  @Test func extendedAnswersOutOfShapeAreTagResponseErrors() async throws {
    let air = Self.air
    let (codes, leftOver) = try await onISO15693Transcript(uid: Self.uid, [
      ([0x22, 0x33] + air + [0x00, 0x01, 0x01, 0x00], .success([0x00, 1, 2, 3, 4, 5, 6, 7])),  // 2 blocks answered with 7 bytes
      ([0x22, 0x3C] + air + [0x00, 0x01, 0x01, 0x00], .success([0x00, 0x00])),                 // 2 statuses answered with 1
      ([0x22, 0x33] + air + [0x00, 0x01, 0x00, 0x00], .success([0x00])),                       // 1 block answered with nothing
    ]) {
      try await withTag("transcript", .iso15693) { found in
        guard let tag = found.iso15693 else { throw NotISO15693() }
        let flags = NFCISO15693RequestFlag.highDataRate
        return [
          await failure { _ = try await tag.extendedReadMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 256, length: 2)) }.code,
          await failure {
            _ = try await tag.extendedGetMultipleBlockSecurityStatus(requestFlags: flags, blockRange: NSRange(location: 256, length: 2))
          }.code,
          await failure { _ = try await tag.extendedReadMultipleBlocks(requestFlags: flags, blockRange: NSRange(location: 256, length: 1)) }.code,
        ]
      }
    }
    #expect(codes == Array(repeating: NFCReaderError.readerTransceiveErrorTagResponseError, count: 3))
    #expect(leftOver == .clean)
  }
}
