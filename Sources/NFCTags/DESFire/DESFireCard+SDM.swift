import NFCTransport

extension DESFireCard {
  /// CreateStdDataFile (CDh) with FileOption bit 6 set: a MIFARE DESFire EV3 standard data file
  /// with Secure Dynamic Messaging pre-enabled, so that ChangeFileSettings may turn SDM on later (the
  /// NTAG 424 DNA's SDM, NT4H2421Gx §10.7.1). The bit is what MichaelsPlayground/MifareDesfireEv3Sun_Reference
  /// (`DesfireEv3Light.java`) sets when it creates the NDEF file; an EV1 or EV2 refuses it (`91 9E`).
  public func createSDMStandardDataFile(_ number: UInt8, isoFileID: UInt16? = nil, access: DESFireFileAccess,
                                        size: Int) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    guard (1...0xFF_FFFF).contains(size) else { throw .invalidArgument("a file size is 1 to 16777215 bytes, not \(size)") }
    var data = [number]
    if let isoFileID { data += Self.fileID(isoFileID) }
    data += [Self.sdmPreEnabledOption | DESFireFileCommunication.plain.rawValue] + access.wireBytes + Self.threeBytes(size)
    let name = "CreateStdDataFile \(hexString([number])) (SDM pre-enabled)"
    let answer = try send(0xCD, data, name: name)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }

  /// FileOption bit 6: SDM pre-enabled at creation (EV3), SDM enabled in ChangeFileSettings.
  public static let sdmPreEnabledOption: UInt8 = 0x40
}
