import Foundation
import Hex
@testable import NTAG424
import ProvisioningLedger
import ProvisioningLedgerSQLite
@testable import SUNService

/// SUN URLs as a tag with keys derived from ``master`` writes them (NTAG424's card side), and a
/// verifier on a fresh SQLite ledger.
enum SUNTestTaps {
  static let master = try! AESKey(bytes: parseHex("00112233445566778899aabbccddeeff")!)
  static let uid: [UInt8] = [0x04, 0x51, 0x9A, 0x22, 0x7B, 0x61, 0x80]
  static let uidHex = "04519a227b6180"

  /// The key material a test must never find in an answer: the master key and both SDM keys.
  static let secrets: [String] = {
    let meta = try! SDMKeyDiversification.metaReadKey(master: master)
    let file = try! SDMKeyDiversification.fileReadKey(master: master, uid: uid)
    return [master, meta, file].map { hexString($0.bytes) }
  }()

  /// The tag's fields for `counter`: encrypted PICCData, the SDMMAC over `macInput` (a function of
  /// the encrypted file data's hex), and the encrypted file data when `file` is given.
  static func fields(counter: UInt32, uid: [UInt8] = uid, file: [UInt8]? = nil,
                     macInput: (String) -> String = { _ in "" }) throws -> (picc: String, mac: String, enc: String?) {
    let meta = try SDMKeyDiversification.metaReadKey(master: master)
    let fileKey = try SDMKeyDiversification.fileReadKey(master: master, uid: uid)
    let picc = try SDMGeneration.encryptPICCData(uid: uid, readCounter: counter, metaReadKey: meta,
                                                 padding: [UInt8](repeating: 0xA5, count: 5))
    let session = try SDMSessionKeys(fileReadKey: fileKey, uid: uid, readCounter: counter)
    let enc = try file.map { try hexString(SDMGeneration.encryptFileData($0, readCounter: counter, sessionKeys: session)) }
    let mac = try SecureDynamicMessaging.mac(over: Array(macInput(enc ?? "").utf8), sessionKeys: session)
    return (hexString(picc), hexString(mac), enc)
  }

  /// `p=…&c=…` for `counter`.
  static func query(counter: UInt32, uid: [UInt8] = uid) throws -> String {
    let f = try fields(counter: counter, uid: uid)
    return "p=\(f.picc)&c=\(f.mac)"
  }

  /// `p=…&enc=…&c=…`: the MAC covers the file data's digits up to `c=` (NXP AN12196's layout).
  static func queryWithFile(counter: UInt32, file: [UInt8]) throws -> String {
    let f = try fields(counter: counter, file: file) { "\($0)&c=" }
    return "p=\(f.picc)&enc=\(f.enc ?? "")&c=\(f.mac)"
  }

  /// A verifier on a new ledger file in a new folder (removed with the returned closure).
  static func verifier(baselines: [String: UInt32] = [:]) throws -> (SUNVerifier, SQLiteLedger, () -> Void) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sun-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let ledger = try SQLiteLedger(path: folder.appendingPathComponent("ledger.sqlite").path, job: LedgerJob(name: "job"))
    let verifier = SUNVerifier(keys: .master(try SUNMasterKey(master)), counters: SUNCounters(ledgers: [ledger], baselines: baselines))
    return (verifier, ledger, { ledger.close(); try? FileManager.default.removeItem(at: folder) })
  }
}
