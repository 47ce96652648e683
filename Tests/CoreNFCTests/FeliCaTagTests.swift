import CoreNFC
import Foundation
import Testing

// NFCFeliCaTag's commands on the simulator's FeliCa Lite-S (NDEF-formatted: system code 12FCh;
// user blocks 00h–0Dh; read service 000Bh, write service 0009h): Core NFC code.

private let liteS = "sim:felica-lite-s"
private let readService = Data([0x0B, 0x00])
private let writeService = Data([0x09, 0x00])

extension NFCTag {
  var feliCa: (any NFCFeliCaTag)? {
    if case .feliCa(let tag) = self { return tag }
    return nil
  }
}

struct NotFeliCa: Error {}

@Suite struct CoreNFCFeliCaTagTests {
  @Test func pollingGivesThePMmAndTheSystemCode() async throws {
    let (pmm, requestData, none, response, current) = try await withTag(liteS, .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      let (pmm, requestData) = try await tag.polling(systemCode: Data([0xFF, 0xFF]), requestCode: .systemCode, timeSlot: .max1)
      let (_, none) = try await tag.polling(systemCode: Data([0x12, 0xFC]), requestCode: .noRequest, timeSlot: .max1)
      let response = await withCheckedContinuation { continuation in
        tag.polling(systemCode: Data([0xFF, 0xFF]), requestCode: .systemCode, timeSlot: .max4) { result in
          continuation.resume(returning: try? result.get())
        }
      }
      return (pmm, requestData, none, response, tag.currentSystemCode)
    }
    #expect(pmm.count == 8)
    #expect(requestData == Data([0x12, 0xFC]))
    #expect(none.isEmpty)
    #expect(response?.manufactureParameter == pmm && response?.requestData == Data([0x12, 0xFC]))
    #expect(current == Data([0x12, 0xFC]))
  }

  @Test func blocksWrittenWithoutEncryptionAreReadBack() async throws {
    let block = Data((0..<16).map { UInt8(0xA0 + $0) })
    let (written, read, completion) = try await withTag(liteS, .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      let written = try await tag.writeWithoutEncryption(serviceCodeList: [writeService], blockList: [Data([0x80, 0x05])],
                                                         blockData: [block])
      let read = try await tag.readWithoutEncryption(serviceCodeList: [readService],
                                                     blockList: [Data([0x80, 0x04]), Data([0x80, 0x05])])
      let completion = await withCheckedContinuation { continuation in
        tag.readWithoutEncryption(serviceCodeList: [readService], blockList: [Data([0x00, 0x05, 0x00])]) {
          (sf1: Int, sf2: Int, blocks: [Data], error: Error?) in
          continuation.resume(returning: (sf1, sf2, blocks, error == nil))
        }
      }
      return (written, read, completion)
    }
    #expect(written == (0, 0))
    #expect(read.0 == 0 && read.1 == 0)
    #expect(read.2 == [Data(count: 16), block])
    // The three-byte block list element (`00 lo hi`) names the same block.
    #expect(completion.0 == 0 && completion.1 == 0 && completion.2 == [block] && completion.3)
  }

  @Test func refusalsAreStatusFlagsNotErrors() async throws {
    let (badService, badBlock, readOnlyService, result) = try await withTag(liteS, .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      let badService = try await tag.readWithoutEncryption(serviceCodeList: [Data([0x34, 0x12])], blockList: [Data([0x80, 0x00])])
      let badBlock = try await tag.readWithoutEncryption(serviceCodeList: [readService], blockList: [Data([0x80, 0x40])])
      let readOnlyService = try await tag.writeWithoutEncryption(serviceCodeList: [readService], blockList: [Data([0x80, 0x01])],
                                                                 blockData: [Data(count: 16)])
      let result = await withCheckedContinuation { continuation in
        tag.writeWithoutEncryption(serviceCodeList: [readService], blockList: [Data([0x80, 0x01])], blockData: [Data(count: 16)]) {
          continuation.resume(returning: try? $0.get())
        }
      }
      return (badService, badBlock, readOnlyService, result)
    }
    #expect(badService.0 == 0x01 && badService.1 == 0xA6 && badService.2.isEmpty)  // invalid service code
    #expect(badBlock.0 == 0x01 && badBlock.1 == 0xA8 && badBlock.2.isEmpty)        // invalid block number
    #expect(readOnlyService == (0x01, 0xA6))
    #expect(result == NFCFeliCaStatusFlag(statusFlag1: 0x01, statusFlag2: 0xA6))
  }

  @Test func argumentsOutOfShapeAreRefusedBeforeSending() async throws {
    let (systemCode, noServices, blockSize) = try await withTag(liteS, .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      let systemCode = await failure { _ = try await tag.polling(systemCode: Data([0x12]), requestCode: .noRequest, timeSlot: .max1) }
      let noServices = await failure { _ = try await tag.readWithoutEncryption(serviceCodeList: [], blockList: [Data([0x80, 0x00])]) }
      let blockSize = await failure {
        _ = try await tag.writeWithoutEncryption(serviceCodeList: [writeService], blockList: [Data([0x80, 0x00])], blockData: [Data(count: 15)])
      }
      return (systemCode.code, noServices.code, blockSize.code)
    }
    #expect(systemCode == .readerErrorInvalidParameterLength)
    #expect(noServices == .readerErrorInvalidParameter)
    #expect(blockSize == .readerErrorInvalidParameter)
  }

  @Test func commandsALiteSDoesNotKnowGetNoAnswer() async throws {
    // A FeliCa Lite-S takes Polling, Read and Write Without Encryption only; it stays silent
    // to Request Service, Request Response and Request System Code, which Core NFC reports as
    // a lost connection.
    let codes = try await withTag(liteS, .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      return [
        await failure { _ = try await tag.requestService(nodeCodeList: [readService]) }.code,
        await failure { _ = try await tag.requestResponse() }.code,
        await failure { _ = try await tag.requestSystemCode() }.code,
      ]
    }
    #expect(codes == Array(repeating: NFCReaderError.readerTransceiveErrorTagConnectionLost, count: 3))
  }
}

// The commands a FeliCa Lite-S does not take, on a card that answers from a transcript: each
// frame is LEN, the command code and the IDm, then the command's parameters.
@Suite struct CoreNFCFeliCaTranscriptTests {
  static let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0x1E, 0x5B, 0x2D, 0x7A, 0x3F]

  @Test func requestServiceResponseAndSystemCodeParseTheCardsAnswers() async throws {
    let idm = Self.idm
    let ((keys, mode, codes), leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0F, 0x02] + idm + [0x02, 0x0B, 0x00, 0x4B, 0x10], .success([0x0F, 0x03] + idm + [0x02, 0x00, 0x00, 0xFF, 0xFF])),  // Request Service: 2 nodes; key versions 0000, FFFF (no such node)
      ([0x0A, 0x04] + idm, .success([0x0B, 0x05] + idm + [0x00])),                                                  // Request Response: mode 0
      ([0x0A, 0x0C] + idm, .success([0x0F, 0x0D] + idm + [0x02, 0x12, 0xFC, 0x88, 0xB4])),                          // Request System Code: 12FC, 88B4
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        return (try await tag.requestService(nodeCodeList: [Data([0x0B, 0x00]), Data([0x4B, 0x10])]),
                try await tag.requestResponse(),
                try await tag.requestSystemCode())
      }
    }
    #expect(keys == [Data([0x00, 0x00]), Data([0xFF, 0xFF])])
    #expect(mode == 0)
    #expect(codes == [Data([0x12, 0xFC]), Data([0x88, 0xB4])])
    #expect(leftOver == .clean)
  }

  @Test func answersOutOfShapeAreTagResponseErrors() async throws {
    let idm = Self.idm
    let other: [UInt8] = [0xFF] + idm.dropFirst()
    let (codes, leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0A, 0x04] + idm, .success([0x0B, 0x05] + other + [0x00])),                     // Request Response from another IDm
      ([0x0A, 0x0C] + idm, .success([0x0D, 0x0D] + idm + [0x02, 0x12, 0xFC])),           // two system codes announced, one sent
      ([0x0A, 0x0C] + idm, .success([0x0B, 0x07] + idm + [0x00])),                       // the answer code of another command
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        return [
          await failure { _ = try await tag.requestResponse() }.code,
          await failure { _ = try await tag.requestSystemCode() }.code,
          await failure { _ = try await tag.requestSystemCode() }.code,
        ]
      }
    }
    #expect(codes == Array(repeating: NFCReaderError.readerTransceiveErrorTagResponseError, count: 3))
    #expect(leftOver == .clean)
  }
}
