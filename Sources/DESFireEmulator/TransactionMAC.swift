import DESFire
import EV2SecureMessaging
import NFCEmulator

/// The virtual DESFire Light's Transaction MAC (NFCEmulator's ``DESFireTransactionMACComputing``):
/// the DESFire module's ``DESFireTransactionMACInput`` and ``DESFireTransactionMAC`` over libcrypto,
/// the same code the host verifies with (MF2DL(H)x0 data sheet §10.3; docs/desfire.md).
extension OpenSSLDESFireSecurity: DESFireTransactionMACComputing {
  package func transactionMACValue(key: [UInt8], committedCounter: UInt32, uid: [UInt8],
                                   commands: [DESFireTMICommand]) -> [UInt8]? {
    var input = DESFireTransactionMACInput()
    for command in commands {
      guard (try? Self.append(command, to: &input)) != nil else { return nil }
    }
    return try? DESFireTransactionMAC.value(key: key, committedCounter: committedCounter, uid: uid, input: input)
  }

  /// One command's part of the input, from its plain parameters (checked: never indexed past them).
  private static func append(_ command: DESFireTMICommand, to input: inout DESFireTransactionMACInput) throws(EV2Error) {
    let p = command.parameters
    guard let file = p.first else { throw .invalidLength(field: "TMI command", expected: 1, actual: 0) }
    func u24(_ at: Int) throws(EV2Error) -> Int {
      guard p.count >= at + 3 else { throw .invalidLength(field: "TMI command", expected: at + 3, actual: p.count) }
      return Int(p[at]) | Int(p[at + 1]) << 8 | Int(p[at + 2]) << 16
    }
    func i32(_ bytes: ArraySlice<UInt8>) throws(EV2Error) -> Int32 {
      guard bytes.count == 4 else { throw .invalidLength(field: "value", expected: 4, actual: bytes.count) }
      return Int32(bitPattern: bytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) })
    }
    switch command.command {
    case 0xBD, 0xAD:
      try input.readData(file: file, offset: u24(1), length: u24(4), data: command.answer, command: command.command)
    case 0x3D, 0x8D, 0x3B:
      _ = try u24(4)
      try input.writeData(file: file, offset: u24(1), data: Array(p.dropFirst(7)), command: command.command)
    case 0xBB:
      try input.readRecords(file: file, record: u24(1), count: u24(4), recordSize: command.recordSize, data: command.answer)
    case 0x6C:
      input.value(command: 0x6C, file: file, value: try i32(command.answer[...]))
    case 0x0C, 0xDC, 0x1C:
      input.value(command: command.command, file: file, value: try i32(p.dropFirst().prefix(4)))
    case 0xEB:
      input.clearRecordFile(file: file)
    default:
      throw .invalidLength(field: "TMI command", expected: 0, actual: 1)
    }
  }
}
