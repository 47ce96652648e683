// Exchanges per DESFire card `nfctag provision` makes (the row's NDEF message and the card's two
// keys), beside the fewest the steps need, and the tags per minute the ACR122U latency model makes
// of them (docs/performance.md, "DESFire provisioning"). The run is the real one: `ProvisioningRun`
// with a DESFire job, a SQLite ledger in a temporary folder, one factory virtual card in a
// simulated ACR122U, as the in-process tests drive it (Tests/ProvisioningTests).
import DESFireEmulator
import DESFireTag
import Hex
import Locking
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import NTAG424
import Provisioning
import ProvisioningLedger
import ProvisioningLedgerSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts the APDUs to the reader and sums the ACR122U latency model's time for them, without
/// sleeping (``LatencyModel/microseconds(command:response:)``).
final class ModelledCounter: APDUTransport {
  let base: any APDUTransport
  private(set) var count = 0
  private(set) var microseconds = 0
  init(_ base: any APDUTransport) { self.base = base }
  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    count += 1
    let reply = try base.transmit(apdu)
    microseconds += LatencyModel.acr122u.microseconds(command: apdu, response: reply)
    return reply
  }
  func reactivateCard() throws(TransceiveError) {
    count += 1
    try base.reactivateCard()
  }
}

/// One tag in one simulated ACR122U, handed out once: the run provisions it and then ends (no
/// reader left). The modelled time includes the tag's arrival (InListPassiveTarget).
final class OneTagPoller: TagPoller, @unchecked Sendable {
  let readerName: String
  let tag: any VirtualTag
  let counter: ModelledCounter
  private var delivered = false

  init(_ tag: any VirtualTag, name: String) throws {
    self.tag = tag
    readerName = "ACS ACR122U PICC Interface (bench \(name)) 00 00"
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    counter = ModelledCounter(SimulatedAPDUTransport(readerName: readerName, card: face))
  }

  /// Modelled reader time for the tag, its arrival included, in microseconds.
  var modelledMicroseconds: Int { counter.microseconds + LatencyModel.acr122u.arrivalMicroseconds }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    guard !delivered else { throw .readerUnavailable("the bench's one tag was handed out") }
    delivered = true
    return [try detectTarget(on: counter)]
  }
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {}
  func release() {}
  func releaseResetting() { tag.reset() }
  func cancel() {}
}

/// What one provisioned card took.
struct ProvisionedCount {
  /// The NDEF message's length in bytes.
  var messageBytes: Int
  /// APDUs to the reader, detection and the LED included (what `--json`'s `apdus` counts).
  var exchanges: Int
  /// Modelled ACR122U reader time, the arrival included, in microseconds.
  var microseconds: Int
}

/// The template of docs/provisioning.md's NTAG215 table, so that the figures compare.
let provisioningTemplate = "https://example.com/t/{n:06}?u={uid}"

/// The `--sdm-url` job's template: the SUN placeholders escaped as the CLI escapes them.
let sdmProvisioningTemplate = "https://example.com/t/{n:06}?p={picc}&c={cmac}"

/// Runs `provision` of one row onto a factory card of `kind` with keys of `keyType` diversified
/// from a master key (AN10922), with `--sdm-url` when `sdm` (an EV3: SDM on its NDEF file, the
/// application's keys derived from the SDM master key); nil when the run did not finish the card.
func provisionDESFire(_ kind: VirtualTagKind, keyType: DESFireSecretKey.Kind, sdm: Bool = false) -> ProvisionedCount? {
  var folderTemplate = Array("/tmp/nfcbench-XXXXXX".utf8CString)
  guard let folder = folderTemplate.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }).map({ String(cString: $0) }) else {
    return nil
  }
  let path = "\(folder)/ledger.sqlite"
  defer {
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    rmdir(folder)
  }
  let length = keyType == .threeKeyTripleDES ? 24 : 16
  guard let tag = try? kind.makeTag(uid: nil), let poller = try? OneTagPoller(tag, name: "\(kind.rawValue) \(keyType)"),
        case .success(let master) = DESFireSecretKey.make((0..<length).map { UInt8($0 * 7 + 3) }, kind: keyType, what: "bench key"),
        let template = try? Template(sdm ? SUNTemplate.escaping(sdmProvisioningTemplate) : provisioningTemplate),
        let sdmMaster = try? AESKey(bytes: (0..<16).map { UInt8($0 * 13 + 1) }),
        let ledger = try? SQLiteLedger(path: path, job: LedgerJob(name: "bench")) else { return nil }
  let rows = RowsFile.counted(1)
  let message = MessageTemplate.url(template)
  let content = JobContent(rows: rows, template: message, mirror: nil,
                           validation: JobValidation(rows: rows, template: message, mirror: nil))
  guard (try? ledger.importRows(rows.rows.map(\.ledgerInput))) != nil else { return nil }
  let job = DESFireProvisioning(keyType: keyType, keys: .diversified(master: master))
  let options = ProvisioningOptions(station: "bench", timeout: 5, sun: sdm ? SUNProvisioning(masterKey: sdmMaster, lock: false) : nil,
                                    desfire: job, recordedStatus: { _ in 1 })
  let done = Locked<[ProvisionedTag]>([])
  let run = ProvisioningRun(ledger: ledger, content: content, options: options) { event in
    if case .tag(let provisioned) = event { done.withLock { $0.append(provisioned) } }
  }
  _ = run.run(pollers: [poller])
  let tags = done.withLock { $0 }
  guard tags.count == 1, tags.first?.status == .done, let uid = tags.first?.uid, let bytes = parseHex(uid),
        let rendered = try? content.render(rowID: "1", sequence: 1, uid: bytes) else { return nil }
  return ProvisionedCount(messageBytes: rendered.bytes.count, exchanges: poller.counter.count, microseconds: poller.modelledMicroseconds)
}

/// The fewest exchanges `provision` needs on a factory DESFire for a message of `messageBytes`,
/// from the commands each step (docs/provisioning.md, "MIFARE DESFire"; DESFireTagSteps.swift)
/// must send, whatever the tool's code does (MF3ICDx21_41_81 §9 for the commands, NXP AN11004 for
/// the NDEF application). A native command carries at most ``DESFireCard/frameData`` (54) bytes a
/// frame, its own header in the first; an answer at most 59 data bytes a frame (a 64-byte frame,
/// FSCI 5), each further frame one `AF` exchange.
/// - identification, as the reader does it (the ACR122U: its firmware, the UID): 2;
/// - step 1, the real UID before the claim: GetVersion (3: its answer's three frames: the card is a
///   DESFire, and its generation says how to authenticate), GetKeyVersion of the PICC master key (1:
///   factory or the job's, told without trying a key), the authentication with the key that version
///   names (2: challenge, answer), GetCardUID (1): 7. The PICC level is selected after activation;
/// - step 2, AN11004's application: CreateApplication (the PICC authentication of step 1 holds),
///   SelectApplication, CreateStdDataFile of the CC and of the NDEF file, WriteData of the CC and
///   of NLEN 0000 (the mapping's initialised state): 6;
/// - step 3, the message written tear-safely, natively (the application is selected): a standard
///   data file has no tearing protection (MF3ICDx21_41_81 §9), so NLEN cannot go with the message
///   in one command; step 2 left NLEN 0000, so the message's WriteData frames (its 7-byte header
///   in the first) and a WriteData of NLEN; then ReadData of NLEN and the message (its answer's frames);
/// - step 4, the application's key first (a removal between the two leaves the PICC key factory,
///   which step 1 reads): the authentication with the application's key 0 (2), ChangeKey (1),
///   SelectApplication of the PICC level (1), the authentication with the PICC master key (2),
///   ChangeKey (1): 7. ChangeKey's cryptogram (a key of up to 24 bytes, its version, CRC, padding,
///   an EV2 MAC) fits one frame;
/// - step 5, the message read back again: SelectApplication of the NDEF application (1) and ReadData;
/// - the outcome on the reader's LED and buzzer (1), which the run sends and counts.
func desfireProvisioningBound(messageBytes: Int) -> Int {
  func frames(_ bytes: Int, _ size: Int) -> Int { max(1, (bytes + size - 1) / size) }
  let read = frames(2 + messageBytes, 59)
  let header = 7  // WriteData: file, offset (3), length (3)
  let write = frames(header + messageBytes, DESFireCard.frameData) + 1
  return 2 + 7 + 6 + (write + read) + 7 + (1 + read) + 1
}

/// The cards the section provisions: an EV1 with 2K3DES keys (the DES family: the NDEF application
/// made with DES keys, the PICC master key changed to 2K3DES) and with AES keys, an EV3 with AES.
let desfireProvisioningCases: [(VirtualTagKind, DESFireSecretKey.Kind, String)] = [
  (.desfireEV1With4K, .twoKeyTripleDES, "EV1 4K, 2K3DES keys"),
  (.desfireEV1With4K, .aes, "EV1 4K, AES keys"),
  (.desfireEV3With4K, .aes, "EV3 4K, AES keys"),
]

/// Prints the section: one line per card and key type.
func printDESFireProvisioning() {
  DESFireEmulator.register()  // the virtual DESFire's cryptography (libcrypto)
  print("")
  print("provision onto a factory MIFARE DESFire: the row's NDEF message (AN11004) and two keys diversified by AN10922, ACR122U")
  print("(APDUs: detection, every step, the LED; bound: the fewest the steps' commands need, desfireProvisioningBound;")
  print(" modelled: the ACR122U latency model's reader time, the tag's arrival included; template \(provisioningTemplate))")
  print("  \(pad("card", 22)) \(pad("bytes", 6)) \(pad("APDUs", 6)) \(pad("bound", 6)) \(pad("modelled", 9)) tags/min")
  for (kind, keyType, name) in desfireProvisioningCases {
    guard let count = provisionDESFire(kind, keyType: keyType) else {
      print("  \(pad(name, 22)) not provisioned")
      continue
    }
    let ms = Double(count.microseconds) / 1000
    print("  \(pad(name, 22)) \(pad(String(count.messageBytes), 6)) \(pad(String(count.exchanges), 6)) "
          + "\(pad(String(desfireProvisioningBound(messageBytes: count.messageBytes)), 6)) "
          + "\(pad("\(Int(ms.rounded())) ms", 9)) \(Int((60_000 / ms).rounded()))")
  }
  // --sdm-url on an EV3: the SUN URL instead of the row's message, SDM set up and the URL verified;
  // no bound derived here (its steps: Sources/Provisioning/DESFireSUNSteps.swift).
  let name = "EV3 4K, --sdm-url"
  guard let count = provisionDESFire(.desfireEV3With4K, keyType: .aes, sdm: true) else {
    print("  \(pad(name, 22)) not provisioned")
    return
  }
  let ms = Double(count.microseconds) / 1000
  print("  \(pad(name, 22)) \(pad("-", 6)) \(pad(String(count.exchanges), 6)) \(pad("-", 6)) "
        + "\(pad("\(Int(ms.rounded())) ms", 9)) \(Int((60_000 / ms).rounded()))  (\(sdmProvisioningTemplate))")
}
