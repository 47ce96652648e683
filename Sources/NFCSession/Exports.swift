// What a session user needs comes with `import NFCSession`: messages and records (NDEF), the
// tag vocabulary (NFCTransport: TagPoller, DetectedTarget, hexString), and the NDEF status and
// chip facts of NFCTags.
@_exported import NDEF
@_exported import NFCTransport
@_exported import struct NFCTags.NDEFStatusReport
@_exported import enum NFCTags.NDEFStatus
@_exported import struct NFCTags.TagInfo
@_exported import enum NFCTags.TagError
