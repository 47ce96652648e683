// What a session user needs comes with `import NFCSession`, and no more: messages and records
// (NDEF); the types of NFCTransport and NFCTags that NFCSession's public declarations take or
// return (a poller and what it finds, the tag platform and details, the failures NFCReaderError
// wraps, reader signals; NDEF status, tag facts, the NTAG21x configuration pages, memory-restore
// plans, ISO 15693 system information); the simulator SessionReaders makes (NFCEmulator's poller,
// spec and error); and `hexString`, for printing tag bytes. A program that
// implements its own TagPoller or Transceiver imports NFCTransport itself.
@_exported import NDEF
@_exported import func Hex.hexString
@_exported import protocol NFCTransport.TagPoller
@_exported import struct NFCTransport.DetectedTarget
@_exported import enum NFCTransport.TagPlatform
@_exported import struct NFCTransport.TargetDetails
@_exported import enum NFCTransport.PollError
@_exported import enum NFCTransport.TransceiveError
@_exported import enum NFCTransport.ReaderSignal
@_exported import struct NFCTags.NDEFStatusReport
@_exported import enum NFCTags.NDEFStatus
@_exported import struct NFCTags.TagInfo
@_exported import struct NFCTags.TagInfoFact
@_exported import enum NFCTags.TagInfoValue
@_exported import enum NFCTags.TagError
@_exported import struct NFCTags.Type2Configuration
@_exported import enum NFCTags.Type2Product
@_exported import struct NFCTags.MemoryRestorePlan
@_exported import struct NFCTags.MemoryUnitWrite
@_exported import enum NFCTags.MemoryRegion
@_exported import struct NFCTags.Type5SystemInfo
@_exported import class NFCEmulator.SimulatorPoller
@_exported import struct NFCEmulator.SimulatorSpec
@_exported import struct NFCEmulator.EmulatorError
