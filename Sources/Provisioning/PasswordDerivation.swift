// Per-tag NTAG21x passwords derived from one provisioning secret.
import Crypto

/// The job's secret, from which every tag's password is derived.
///
/// The tool reads it from a file or an environment variable, never from the command line. It is
/// never printed: ``description``, ``debugDescription`` and reflection show no byte of it.
public struct ProvisioningSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The fewest bytes a secret may have.
  public static let minimumLength = 16
  /// The most bytes a secret may have (a secret file is read up to this size).
  public static let maximumLength = 4096

  let key: SymmetricKey

  /// A secret of exactly `bytes`.
  /// - Throws: ``ProvisioningSecretError`` when it is shorter than ``minimumLength`` or longer
  ///   than ``maximumLength`` bytes. The error holds only the length.
  public init(bytes: [UInt8]) throws(ProvisioningSecretError) {
    guard bytes.count >= Self.minimumLength else { throw .tooShort(bytes.count) }
    guard bytes.count <= Self.maximumLength else { throw .tooLong(bytes.count) }
    key = SymmetricKey(data: bytes)
  }

  /// A secret from text (an environment variable, a text file): its UTF-8 bytes, without the
  /// line breaks (CR, LF) at its end.
  /// - Throws: ``ProvisioningSecretError`` as ``init(bytes:)``.
  public init(text: String) throws(ProvisioningSecretError) {
    var bytes = Array(text.utf8)
    while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
    try self.init(bytes: bytes)
  }

  /// The secret's length in bytes.
  public var byteCount: Int { key.bitCount / 8 }

  public var description: String { "ProvisioningSecret(hidden)" }
  public var debugDescription: String { description }
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Why a secret was refused. Holds lengths only.
public enum ProvisioningSecretError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Fewer than ``ProvisioningSecret/minimumLength`` bytes.
  case tooShort(Int)
  /// More than ``ProvisioningSecret/maximumLength`` bytes.
  case tooLong(Int)

  public var description: String {
    switch self {
    case .tooShort(let n): return "the provisioning secret is \(n) bytes; at least \(ProvisioningSecret.minimumLength) are needed"
    case .tooLong(let n): return "the provisioning secret is \(n) bytes; at most \(ProvisioningSecret.maximumLength) are allowed"
    }
  }
}

/// An NTAG21x password and its acknowledge, for PWD (4 bytes) and PACK (2 bytes).
public struct DerivedPassword: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// PWD: written to the PWD page, sent with PWD_AUTH (1Bh).
  public let pwd: [UInt8]
  /// PACK: written to the PACK page, answered by the tag to a right PWD_AUTH.
  public let pack: [UInt8]

  public var description: String { "DerivedPassword(hidden)" }
  public var debugDescription: String { description }
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The tag's password: PWD = bytes 0–3 and PACK = bytes 4–5 of HMAC-SHA256(secret, UID bytes).
///
/// Each tag gets its own password, and anyone holding the secret can recompute it from the UID
/// the tag shows; a password read off one tag says nothing about another.
/// - Parameters:
///   - secret: the job's secret.
///   - uid: the tag's UID bytes, as the reader reports them (7 bytes on NTAG21x).
public func derivePassword(secret: ProvisioningSecret, uid: [UInt8]) -> DerivedPassword {
  let mac = Array(HMAC<SHA256>.authenticationCode(for: uid, using: secret.key))
  return DerivedPassword(pwd: Array(mac[0..<4]), pack: Array(mac[4..<6]))
}
