import NDEF
import NDEFJSON

/// The empty NDEF message: no records, zero bytes.
///
/// On a tag it is a zero-length NDEF message: what `erase` and `format` write (an NDEF Message
/// TLV with length 0 on Types 1, 2 and 5, NFC Forum Type 2 Tag 1.0 §2.3.4; NLEN 0 on Type 4; Ln 0
/// on Type 3). It has no record encoding (NDEF 1.0 §3.2 needs at least one record, and a TNF 0
/// record D0 00 00 is a message of one empty record), so between commands it is zero bytes: an
/// empty line in hex, `{"records":[]}` in JSON.
extension NDEFMessage {
  /// Decodes message bytes; zero bytes are the empty message.
  static func decodingAllowingEmpty(_ bytes: [UInt8]) throws(NDEFError) -> NDEFMessage {
    bytes.isEmpty ? NDEFMessage(records: []) : try NDEFMessage(decoding: bytes)
  }

  /// The canonical encoding; the empty message is zero bytes.
  func encodedAllowingEmpty() throws(NDEFError) -> [UInt8] {
    records.isEmpty ? [] : try encoded()
  }
}

/// What text output says for a message without records (`read`, `scan`, `ndef decode`).
let emptyMessageText = "(empty NDEF message)\n"

/// Text output of a message: its records, or a line saying it is empty.
func messageTextOrEmpty(_ message: NDEFMessage, showSecrets: Bool) -> String {
  message.records.isEmpty ? emptyMessageText : messageText(message, showSecrets: showSecrets)
}
