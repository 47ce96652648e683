import CoreNFC
import Foundation
import Testing

// NFCFeliCaTag's Request Service V2, Request Specification Version and Reset Mode, and the
// result-handler forms: on a card answering from a transcript (each frame LEN, the command
// code and the IDm, then the parameters), and on the simulator's FeliCa Lite-S, which takes
// none of the three.

private let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0x1E, 0x5B, 0x2D, 0x7A, 0x3F]

/// Runs a result-handler form and returns its value, or nil and the failure's Core NFC code.
private func outcome<T: Sendable>(_ start: (@escaping (Result<T, Error>) -> Void) -> Void) async -> (value: T?, code: NFCReaderError.Code?) {
  await withCheckedContinuation { continuation in
    start { result in
      switch result {
      case .success(let value): continuation.resume(returning: (value, nil))
      case .failure(let error): continuation.resume(returning: (nil, (error as? NFCReaderError)?.code))
      }
    }
  }
}

@Suite struct CoreNFCFeliCaVersion2Tests {
  @Test func requestServiceV2GivesTheKeyVersionsOfEachEncryption() async throws {
    let ((aesOnly, both, refused), leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0D, 0x32] + idm + [0x01, 0x0B, 0x00], .success([0x10, 0x33] + idm + [0x00, 0x00, 0x4F, 0x01, 0x00, 0x10])),         // 1 node; AES only: 1000h
      ([0x0F, 0x32] + idm + [0x02, 0x0B, 0x00, 0x4B, 0x10],
       .success([0x16, 0x33] + idm + [0x00, 0x00, 0x41, 0x02, 0x01, 0x00, 0xFF, 0xFF, 0x02, 0x00, 0xFF, 0xFF])),           // 2 nodes; AES 0001, FFFF; DES 0002, FFFF
      ([0x0D, 0x32] + idm + [0x01, 0x0B, 0x00], .success([0x0C, 0x33] + idm + [0x01, 0xA1])),                              // refused: SF1 01, SF2 A1
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        let aesOnly = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])])
        let both = await outcome { tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00]), Data([0x4B, 0x10])], resultHandler: $0) }
        let refused = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])])
        return (aesOnly, both.value, refused)
      }
    }
    #expect(aesOnly.0 == 0 && aesOnly.1 == 0 && aesOnly.2 == .AES)
    #expect(aesOnly.3 == [Data([0x00, 0x10])] && aesOnly.4.isEmpty)
    #expect(both == NFCFeliCaRequsetServiceV2Response(statusFlag1: 0, statusFlag2: 0, encryptionIdentifier: .AES_DES,
                                                      nodeKeyVersionListAES: [Data([0x01, 0x00]), Data([0xFF, 0xFF])],
                                                      nodeKeyVersionListDES: [Data([0x02, 0x00]), Data([0xFF, 0xFF])]))
    #expect(refused.0 == 0x01 && refused.1 == 0xA1 && refused.3.isEmpty && refused.4.isEmpty)
    #expect(leftOver == .clean)
  }

  @Test func specificationVersionAndResetModeParseTheCardsAnswers() async throws {
    let ((version, viaResult, reset, resetResult), leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0C, 0x3C] + idm + [0x00, 0x00], .success([0x12, 0x3D] + idm + [0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x02])),  // format 00, basic 0100h, 1 option: 0200h
      ([0x0C, 0x3C] + idm + [0x00, 0x00], .success([0x10, 0x3D] + idm + [0x00, 0x00, 0x00, 0x00, 0x01, 0x00])),              // no options
      ([0x0C, 0x3E] + idm + [0x00, 0x00], .success([0x0C, 0x3F] + idm + [0x00, 0x00])),                                      // Reset Mode: done
      ([0x0C, 0x3E] + idm + [0x00, 0x00], .success([0x0C, 0x3F] + idm + [0x01, 0xA1])),                                      // Reset Mode refused
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        let version = try await tag.requestSpecificationVersion()
        let viaResult = await outcome { tag.requestSpecificationVersion(resultHandler: $0) }
        let reset = try await tag.resetMode()
        let resetResult = await outcome { tag.resetMode(resultHandler: $0) }
        return (version, viaResult.value, reset, resetResult.value)
      }
    }
    #expect(version.0 == 0 && version.1 == 0 && version.2 == Data([0x00, 0x01]) && version.3 == Data([0x00, 0x02]))
    #expect(viaResult == NFCFeliCaRequestSpecificationVersionResponse(statusFlag1: 0, statusFlag2: 0,
                                                                      basicVersion: Data([0x00, 0x01]), optionVersion: nil))
    #expect(reset == (0, 0))
    #expect(resetResult == NFCFeliCaStatusFlag(statusFlag1: 0x01, statusFlag2: 0xA1))
    #expect(leftOver == .clean)
  }

  @Test func answersOutOfShapeAreTagResponseErrors() async throws {
    let (codes, leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0D, 0x32] + idm + [0x01, 0x0B, 0x00], .success([0x10, 0x33] + idm + [0x00, 0x00, 0x4F, 0x02, 0x00, 0x10])),  // 2 nodes announced for 1 asked
      ([0x0D, 0x32] + idm + [0x01, 0x0B, 0x00], .success([0x10, 0x33] + idm + [0x00, 0x00, 0x42, 0x01, 0x00, 0x10])),  // encryption 42h is neither
      ([0x0D, 0x32] + idm + [0x01, 0x0B, 0x00], .success([0x10, 0x33] + idm + [0x00, 0x00, 0x41, 0x01, 0x00, 0x10])),  // AES+DES without the DES list
      ([0x0C, 0x3C] + idm + [0x00, 0x00], .success([0x12, 0x3D] + idm + [0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x02])),  // 2 options, 1 sent
      ([0x0C, 0x3E] + idm + [0x00, 0x00], .success([0x0B, 0x3F] + idm + [0x00])),                                      // Reset Mode without SF2
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        return [
          await failure { _ = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])]) }.code,
          await failure { _ = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])]) }.code,
          await failure { _ = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])]) }.code,
          await failure { _ = try await tag.requestSpecificationVersion() }.code,
          await failure { _ = try await tag.resetMode() }.code,
        ]
      }
    }
    #expect(codes == Array(repeating: NFCReaderError.readerTransceiveErrorTagResponseError, count: 5))
    #expect(leftOver == .clean)
  }

  @Test func resultHandlerFormsOfTheOlderCommands() async throws {
    let ((packet, keys, mode, codes), leftOver) = try await onFeliCaTranscript(idm: idm, [
      ([0x0A, 0x04] + idm, .success([0x0B, 0x05] + idm + [0x01])),                                                  // sendFeliCaCommand: Request Response, mode 1
      ([0x0D, 0x02] + idm + [0x01, 0x0B, 0x00], .success([0x0D, 0x03] + idm + [0x01, 0x00, 0x00])),                 // Request Service: key version 0000
      ([0x0A, 0x04] + idm, .success([0x0B, 0x05] + idm + [0x00])),                                                  // Request Response: mode 0
      ([0x0A, 0x0C] + idm, .success([0x0D, 0x0D] + idm + [0x01, 0x12, 0xFC])),                                      // Request System Code: 12FC
    ]) {
      try await withTag("transcript", .iso18092) { found in
        guard let tag = found.feliCa else { throw NotFeliCa() }
        let packet = await outcome { tag.sendFeliCaCommand(commandPacket: Data([0x04] + idm), resultHandler: $0) }
        let keys = await outcome { tag.requestService(nodeCodeList: [Data([0x0B, 0x00])], resultHandler: $0) }
        let mode = await outcome { tag.requestResponse(resultHandler: $0) }
        let codes = await outcome { tag.requestSystemCode(resultHandler: $0) }
        return (packet.value, keys.value, mode.value, codes.value)
      }
    }
    #expect(packet == Data([0x05] + idm + [0x01]))
    #expect(keys == [Data([0x00, 0x00])])
    #expect(mode == 0)
    #expect(codes == [Data([0x12, 0xFC])])
    #expect(leftOver == .clean)
  }

  @Test func aLiteSGivesNoAnswerToTheVersion2Commands() async throws {
    // A FeliCa Lite-S takes Polling, Read and Write Without Encryption only: silence, which
    // Core NFC reports as a lost connection (100), through each form.
    let (codes, viaResult) = try await withTag("sim:felica-lite-s", .iso18092) { found in
      guard let tag = found.feliCa else { throw NotFeliCa() }
      let codes = [
        await failure { _ = try await tag.requestServiceV2(nodeCodeList: [Data([0x0B, 0x00])]) }.code,
        await failure { _ = try await tag.requestSpecificationVersion() }.code,
        await failure { _ = try await tag.resetMode() }.code,
      ]
      let viaResult = await outcome { tag.resetMode(resultHandler: $0) }.code
      return (codes, viaResult)
    }
    #expect(codes == Array(repeating: NFCReaderError.readerTransceiveErrorTagConnectionLost, count: 3))
    #expect(viaResult == .readerTransceiveErrorTagConnectionLost)
  }

  @Test func encryptionIdentifiersAreTheAnswersBytes() {
    #expect(NFCFeliCaEncryptionId.AES.rawValue == 0x4F && NFCFeliCaEncryptionId.AES_DES.rawValue == 0x41)
  }
}
