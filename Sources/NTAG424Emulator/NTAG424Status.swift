/// SW2 of the status words a 424 DNA answers to native commands (SW1 91h).
///
/// NT4H2421Gx datasheet §10.3, Table 23 (CLA 90h). The ISO commands (CLA 00h) answer ISO/IEC
/// 7816-4 status words instead (Table 24: ``StatusWord`` in NFCTransport).
enum NTAG424Status: UInt8, Error, Sendable {
  /// `91 00` OPERATION_OK.
  case ok = 0x00
  /// `91 1C` ILLEGAL_COMMAND_CODE.
  case illegalCommand = 0x1C
  /// `91 1E` INTEGRITY_ERROR: CRC or MAC does not match, padding bytes not valid.
  case integrityError = 0x1E
  /// `91 40` NO_SUCH_KEY.
  case noSuchKey = 0x40
  /// `91 7E` LENGTH_ERROR.
  case lengthError = 0x7E
  /// `91 9D` PERMISSION_DENIED.
  case permissionDenied = 0x9D
  /// `91 9E` PARAMETER_ERROR.
  case parameterError = 0x9E
  /// `91 AD` AUTHENTICATION_DELAY: "Currently not allowed to authenticate. Keep trying until full
  /// delay is spent."
  case authenticationDelay = 0xAD
  /// `91 AE` AUTHENTICATION_ERROR.
  case authenticationError = 0xAE
  /// `91 AF` ADDITIONAL_FRAME.
  case additionalFrame = 0xAF
  /// `91 BE` BOUNDARY_ERROR.
  case boundaryError = 0xBE
  /// `91 CA` COMMAND_ABORTED.
  case commandAborted = 0xCA
  /// `91 EE` MEMORY_ERROR (here: swift-crypto refused an operation).
  case memoryError = 0xEE
  /// `91 F0` FILE_NOT_FOUND.
  case fileNotFound = 0xF0

  /// The two status bytes.
  var bytes: [UInt8] { [0x91, rawValue] }
}
