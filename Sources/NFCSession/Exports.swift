// What a session user needs comes with `import NFCSession`, and no more: messages and records
// (NDEF); every type of NFCTransport, NFCTags, NFCEmulator and swift-log that NFCSession's public
// declarations take or return, and those their own public API names in turn (a poller and what it
// finds, with the link it talks through, the tag platform and details, the failures NFCReaderError
// wraps, reader signals; NDEF status, tag facts, the NTAG21x configuration pages, memory-restore
// plans, ISO 15693 system information, MIFARE Classic value blocks and sector claims; the
// simulator SessionReaders makes, NFCEmulator's poller, spec and error, and the virtual tags a
// spec names; the logger a poller takes); and `hexString`, for printing tag bytes. The rest of
// NFCTransport and NFCTags comes with NFCReaders or NFCEmulator, which re-export them whole.
// docs/architecture.md, "Products and examples"; scripts/check-library-package.sh uses some of
// these names through `import NFCSession` alone.
@_exported import NDEF
@_exported import func Hex.hexString
@_exported import protocol NFCTransport.TagPoller
@_exported import struct NFCTransport.DetectedTarget
@_exported import enum NFCTransport.TagPlatform
@_exported import struct NFCTransport.TargetDetails
@_exported import enum NFCTransport.PollError
@_exported import enum NFCTransport.TransceiveError
@_exported import enum NFCTransport.ReaderSignal
@_exported import protocol NFCTransport.Transceiver
@_exported import protocol NFCTransport.APDUTransport
@_exported import struct NFCTransport.LinkCapabilities
@_exported import struct NFCTransport.StatusWord
@_exported import struct NFCTags.NDEFStatusReport
@_exported import enum NFCTags.NDEFStatus
@_exported import struct NFCTags.TagInfo
@_exported import struct NFCTags.TagInfoFact
@_exported import enum NFCTags.TagInfoValue
@_exported import enum NFCTags.TagError
@_exported import struct NFCTags.Type2Configuration
@_exported import enum NFCTags.Type2Product
@_exported import struct NFCTags.MemoryDump
@_exported import struct NFCTags.MemoryRestorePlan
@_exported import struct NFCTags.MemoryUnitWrite
@_exported import enum NFCTags.MemoryRegion
@_exported import struct NFCTags.Type5SystemInfo
@_exported import struct NFCTags.MIFAREClassicValueBlock
@_exported import enum NFCTags.MIFAREClassicValueChange
@_exported import struct NFCTags.MIFAREClassicSectorClaim
@_exported import struct NFCTags.MIFAREApplicationID
@_exported import enum NFCTags.NTAG21xMirrorMode
@_exported import struct NFCTags.OriginalitySignatureRead
@_exported import class NFCEmulator.SimulatorPoller
@_exported import struct NFCEmulator.SimulatorSpec
@_exported import struct NFCEmulator.EmulatorError
@_exported import protocol NFCEmulator.VirtualTag
@_exported import protocol NFCEmulator.VirtualCard
@_exported import enum NFCEmulator.VirtualTagKind
@_exported import struct NFCEmulator.DESFireChip
@_exported import enum NFCEmulator.TagResponse
@_exported import enum NFCEmulator.RFTechnology
@_exported import typealias NFCEmulator.ReaderFaceKind
@_exported import enum NFCTransport.ReaderModel
@_exported import struct NFCEmulator.ReaderProfile
@_exported import struct NFCEmulator.FeedSettings
@_exported import enum NFCEmulator.LatencyModel
@_exported import struct Logging.Logger
