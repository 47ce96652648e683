#if os(Linux)
import Foundation
internal import NFCSession

/// The request flags of an ISO 15693 command (ISO/IEC 15693-3 §7.3.1, the flags byte with the
/// Inventory flag clear). Core NFC's `NFCISO15693RequestFlag`.
///
/// As in Core NFC, every command of ``NFCISO15693Tag`` is sent addressed (``address`` is set and
/// the UID follows the command code) unless the flags contain ``select``.
public struct NFCISO15693RequestFlag: OptionSet, Hashable, Sendable {
  /// The flags byte.
  public let rawValue: UInt8
  /// Flags from their byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// 01h: the tag answers on two subcarriers.
  public static let dualSubCarriers = NFCISO15693RequestFlag(rawValue: 0x01)
  /// 02h: the high data rate.
  public static let highDataRate = NFCISO15693RequestFlag(rawValue: 0x02)
  /// 08h: the protocol format is extended.
  public static let protocolExtension = NFCISO15693RequestFlag(rawValue: 0x08)
  /// 10h: only the selected tag answers; the UID is not sent.
  public static let select = NFCISO15693RequestFlag(rawValue: 0x10)
  /// 20h: the UID follows the command code, and only that tag answers.
  public static let address = NFCISO15693RequestFlag(rawValue: 0x20)
  /// 40h: the command's option (for reads, the block security status before each block).
  public static let option = NFCISO15693RequestFlag(rawValue: 0x40)
  /// 80h: the flag whose meaning each command defines.
  public static let commandSpecificBit8 = NFCISO15693RequestFlag(rawValue: 0x80)
}

/// Core NFC's other name for ``NFCISO15693RequestFlag``.
public typealias RequestFlag = NFCISO15693RequestFlag

/// The key under which an ``NFCReaderError`` from an ISO 15693 command gives the error code the
/// tag answered (for example 10h, block not available), as an `Int`. Core NFC's
/// `NFCISO15693TagResponseErrorKey`.
public let NFCISO15693TagResponseErrorKey = "ISO15693TagResponseErrorCode"

/// What GET SYSTEM INFORMATION (2Bh) answered. Core NFC's `NFCISO15693SystemInfo`: a field the
/// tag did not send is -1.
public struct NFCISO15693SystemInfo: Hashable, Sendable {
  /// The UID, most significant byte first (as ``NFCISO15693Tag/identifier``).
  public var uniqueIdentifier: Data
  /// The DSFID, or -1.
  public var dataStorageFormatIdentifier: Int
  /// The AFI, or -1.
  public var applicationFamilyIdentifier: Int
  /// Bytes per block, or -1.
  public var blockSize: Int
  /// The number of blocks, or -1.
  public var totalBlocks: Int
  /// The IC reference, or -1.
  public var icReference: Int

  init(_ info: Type5SystemInfo) {
    uniqueIdentifier = Data(info.uid.reversed())
    dataStorageFormatIdentifier = info.dsfid.map(Int.init) ?? -1
    applicationFamilyIdentifier = info.afi.map(Int.init) ?? -1
    blockSize = info.blockSize ?? -1
    totalBlocks = info.blockCount ?? -1
    icReference = info.icReference.map(Int.init) ?? -1
  }
}

/// An ISO 15693 vicinity tag (NFC Forum Type 5). Core NFC's `NFCISO15693Tag`: NDEF, its
/// identity and the ISO/IEC 15693-3 commands below, each with a completion handler (run on the
/// session's queue) and in an async form.
///
/// A tag's refusal (`01 code`) is ``NFCReaderError/Code-swift.enum/readerTransceiveErrorTagResponseError``
/// (102) with the code under ``NFCISO15693TagResponseErrorKey``; a block number past the tag's
/// last block is refused so (10h).
public protocol NFCISO15693Tag: NFCNDEFTag {
  /// The UID, most significant byte first (E0h, then the manufacturer code).
  var identifier: Data { get }
  /// The IC manufacturer code (ISO/IEC 7816-6; 04h NXP).
  var icManufacturerCode: Int { get }
  /// The UID's last six bytes: the serial number the manufacturer gave the chip.
  var icSerialNumber: Data { get }
  /// STAY QUIET (02h): the tag answers no unaddressed command until it is selected or reset.
  /// STAY QUIET has no answer, so a tag that stays silent has obeyed.
  func stayQuiet(completionHandler: @escaping ((any Error)?) -> Void)
  /// ``stayQuiet(completionHandler:)``, async.
  func stayQuiet() async throws
  /// READ SINGLE BLOCK (20h): the block's bytes (with the Option flag, its security status first).
  func readSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8,
                       completionHandler: @escaping (Data, (any Error)?) -> Void)
  /// ``readSingleBlock(requestFlags:blockNumber:completionHandler:)``, async.
  func readSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8) async throws -> Data
  /// WRITE SINGLE BLOCK (21h): `dataBlock` has the tag's block size.
  func writeSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8, dataBlock: Data,
                        completionHandler: @escaping ((any Error)?) -> Void)
  /// ``writeSingleBlock(requestFlags:blockNumber:dataBlock:completionHandler:)``, async.
  func writeSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8, dataBlock: Data) async throws
  /// LOCK BLOCK (22h): permanent.
  func lockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8,
                 completionHandler: @escaping ((any Error)?) -> Void)
  /// ``lockBlock(requestFlags:blockNumber:completionHandler:)``, async.
  func lockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8) async throws
  /// READ MULTIPLE BLOCKS (23h) of the blocks in `blockRange` (blocks 0–255): one `Data` per block.
  func readMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                          completionHandler: @escaping ([Data], (any Error)?) -> Void)
  /// ``readMultipleBlocks(requestFlags:blockRange:completionHandler:)``, async.
  func readMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange) async throws -> [Data]
  /// WRITE MULTIPLE BLOCKS (24h): one `Data` of the block size per block of `blockRange`. Many
  /// tags (the ICODE SLIX family among them) refuse it (error 01h): write block by block there.
  func writeMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data],
                           completionHandler: @escaping ((any Error)?) -> Void)
  /// ``writeMultipleBlocks(requestFlags:blockRange:dataBlocks:completionHandler:)``, async.
  func writeMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data]) async throws
  /// GET SYSTEM INFORMATION (2Bh): DSFID, AFI, block size, number of blocks and IC reference
  /// (-1 for a field the tag did not send).
  func getSystemInfo(requestFlags flags: NFCISO15693RequestFlag,
                     completionHandler: @escaping (Int, Int, Int, Int, Int, (any Error)?) -> Void)
  /// GET SYSTEM INFORMATION (2Bh) with the UID the tag sent: Core NFC's result-handler form.
  func getSystemInfo(requestFlags flags: NFCISO15693RequestFlag,
                     resultHandler: @escaping (Result<NFCISO15693SystemInfo, any Error>) -> Void)
  /// ``getSystemInfo(requestFlags:resultHandler:)``, async.
  func systemInfo(requestFlags flags: NFCISO15693RequestFlag) async throws -> NFCISO15693SystemInfo
  /// SELECT (25h): the tag answers commands sent with ``NFCISO15693RequestFlag/select`` until it
  /// is reset or another tag is selected.
  func select(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``select(requestFlags:completionHandler:)``, async.
  func select(requestFlags flags: NFCISO15693RequestFlag) async throws
  /// RESET TO READY (26h): the tag leaves the selected and quiet states.
  func resetToReady(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``resetToReady(requestFlags:completionHandler:)``, async.
  func resetToReady(requestFlags flags: NFCISO15693RequestFlag) async throws
  /// WRITE AFI (27h).
  func writeAFI(requestFlags flags: NFCISO15693RequestFlag, afi: UInt8, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``writeAFI(requestFlags:afi:completionHandler:)``, async.
  func writeAFI(requestFlags flags: NFCISO15693RequestFlag, afi: UInt8) async throws
  /// LOCK AFI (28h): permanent.
  func lockAFI(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``lockAFI(requestFlags:completionHandler:)``, async.
  func lockAFI(requestFlags flags: NFCISO15693RequestFlag) async throws
  /// WRITE DSFID (29h).
  func writeDSFID(requestFlags flags: NFCISO15693RequestFlag, dsfid: UInt8, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``writeDSFID(requestFlags:dsfid:completionHandler:)``, async.
  func writeDSFID(requestFlags flags: NFCISO15693RequestFlag, dsfid: UInt8) async throws
  /// LOCK DSFID (2Ah): permanent. Core NFC's name, spelt as Core NFC spells it.
  func lockDFSID(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``lockDFSID(requestFlags:completionHandler:)``, async.
  func lockDFSID(requestFlags flags: NFCISO15693RequestFlag) async throws
  /// A custom command (A0h–DFh) of the tag's manufacturer: ``icManufacturerCode`` is inserted
  /// after the command code, then the UID (when addressed) and `customRequestParameters`; the
  /// handler gets the answer after its flags byte.
  func customCommand(requestFlags flags: NFCISO15693RequestFlag, customCommandCode: Int, customRequestParameters: Data,
                     completionHandler: @escaping (Data, (any Error)?) -> Void)
  /// ``customCommand(requestFlags:customCommandCode:customRequestParameters:completionHandler:)``, async.
  func customCommand(requestFlags flags: NFCISO15693RequestFlag, customCommandCode: Int,
                     customRequestParameters: Data) async throws -> Data
  /// LOCK DSFID (2Ah): Core NFC's corrected name for ``lockDFSID(requestFlags:completionHandler:)``.
  func lockDSFID(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void)
  /// ``lockDSFID(requestFlags:completionHandler:)``, async.
  func lockDSFID(requestFlags flags: NFCISO15693RequestFlag) async throws
  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch) of the blocks in `blockRange` (blocks 0–255): one
  /// status per block (bit 0 set: locked).
  func getMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                      completionHandler: @escaping ([NSNumber], (any Error)?) -> Void)
  /// ``getMultipleBlockSecurityStatus(requestFlags:blockRange:completionHandler:)``, async.
  func getMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange) async throws -> [NSNumber]
  /// EXTENDED READ SINGLE BLOCK (30h): as READ SINGLE BLOCK, with a 2-byte block number (0–65535).
  func extendedReadSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                               completionHandler: @escaping (Data, (any Error)?) -> Void)
  /// ``extendedReadSingleBlock(requestFlags:blockNumber:completionHandler:)``, async.
  func extendedReadSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int) async throws -> Data
  /// EXTENDED WRITE SINGLE BLOCK (31h): as WRITE SINGLE BLOCK, with a 2-byte block number.
  func extendedWriteSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int, dataBlock: Data,
                                completionHandler: @escaping ((any Error)?) -> Void)
  /// ``extendedWriteSingleBlock(requestFlags:blockNumber:dataBlock:completionHandler:)``, async.
  func extendedWriteSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int, dataBlock: Data) async throws
  /// EXTENDED LOCK BLOCK (32h): as LOCK BLOCK, with a 2-byte block number.
  func extendedLockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                         completionHandler: @escaping ((any Error)?) -> Void)
  /// ``extendedLockBlock(requestFlags:blockNumber:completionHandler:)``, async.
  func extendedLockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int) async throws
  /// EXTENDED READ MULTIPLE BLOCKS (33h) of the blocks in `blockRange` (blocks 0–65535).
  func extendedReadMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                  completionHandler: @escaping ([Data], (any Error)?) -> Void)
  /// ``extendedReadMultipleBlocks(requestFlags:blockRange:completionHandler:)``, async.
  func extendedReadMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange) async throws -> [Data]
  /// EXTENDED WRITE MULTIPLE BLOCKS (34h): one `Data` of the block size per block of `blockRange`.
  func extendedWriteMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data],
                                   completionHandler: @escaping ((any Error)?) -> Void)
  /// ``extendedWriteMultipleBlocks(requestFlags:blockRange:dataBlocks:completionHandler:)``, async.
  func extendedWriteMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                   dataBlocks: [Data]) async throws
  /// EXTENDED GET MULTIPLE BLOCK SECURITY STATUS (3Ch): as ``getMultipleBlockSecurityStatus(requestFlags:blockRange:completionHandler:)``
  /// for blocks 0–65535.
  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                              completionHandler: @escaping ([NSNumber], (any Error)?) -> Void)
  /// ``extendedGetMultipleBlockSecurityStatus(requestFlags:blockRange:completionHandler:)``, async.
  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag,
                                              blockRange: NSRange) async throws -> [NSNumber]
  /// Sends `flags commandCode data` as given (nothing added: no UID, no manufacturer code) and
  /// hands back the answer's flags and what follows them. A tag's refusal is an answer here:
  /// ``NFCISO15693ResponseFlag/error`` with the ISO 15693 error code as the data.
  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?,
                   completionHandler: @escaping (NFCISO15693ResponseFlag, Data?, (any Error)?) -> Void)
  /// ``sendRequest(requestFlags:commandCode:data:completionHandler:)``, async.
  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?) async throws -> (NFCISO15693ResponseFlag, Data?)
}
#endif
