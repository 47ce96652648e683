#if os(Linux)
import Foundation

/// The encryption a FeliCa card's Request Service V2 answer says it uses. Core NFC's
/// `NFCFeliCaEncryptionId` (the value is the answer's Encryption Identifier byte; FeliCa Card
/// User's Manual, Excerpted Edition, Request Service V2).
public enum NFCFeliCaEncryptionId: Int, Hashable, Sendable {
  /// 4Fh: AES keys only; the answer lists AES key versions.
  case AES = 0x4F
  /// 41h: AES and DES keys; the answer lists AES key versions, then DES key versions.
  case AES_DES = 0x41
}

/// A Request Service V2 answer. Core NFC's `NFCFeliCaRequsetServiceV2Response`, spelt as Core
/// NFC spells it.
public struct NFCFeliCaRequsetServiceV2Response: Hashable, Sendable {
  /// SF1.
  public var statusFlag1: Int
  /// SF2.
  public var statusFlag2: Int
  /// The encryption the card uses.
  public var encryptionIdentifier: NFCFeliCaEncryptionId
  /// The AES key version of each node (2 bytes each), or nil when the card sent none.
  public var nodeKeyVersionListAES: [Data]?
  /// The DES key version of each node (2 bytes each), or nil when the card sent none.
  public var nodeKeyVersionListDES: [Data]?
  /// An answer from its fields.
  public init(statusFlag1: Int, statusFlag2: Int, encryptionIdentifier: NFCFeliCaEncryptionId,
              nodeKeyVersionListAES: [Data]?, nodeKeyVersionListDES: [Data]?) {
    self.statusFlag1 = statusFlag1
    self.statusFlag2 = statusFlag2
    self.encryptionIdentifier = encryptionIdentifier
    self.nodeKeyVersionListAES = nodeKeyVersionListAES
    self.nodeKeyVersionListDES = nodeKeyVersionListDES
  }
}

/// A Request Specification Version answer. Core NFC's `NFCFeliCaRequestSpecificationVersionResponse`.
public struct NFCFeliCaRequestSpecificationVersionResponse: Hashable, Sendable {
  /// SF1.
  public var statusFlag1: Int
  /// SF2.
  public var statusFlag2: Int
  /// The basic version (2 bytes), or nil when the card sent none.
  public var basicVersion: Data?
  /// The option versions (2 bytes each, one after the other), or nil when the card sent none.
  public var optionVersion: Data?
  /// An answer from its fields.
  public init(statusFlag1: Int, statusFlag2: Int, basicVersion: Data?, optionVersion: Data?) {
    self.statusFlag1 = statusFlag1
    self.statusFlag2 = statusFlag2
    self.basicVersion = basicVersion
    self.optionVersion = optionVersion
  }
}
#endif
