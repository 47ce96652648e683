import CPCSC

// C constants named in one place. `SCARD_*` macros import as Int32, codes as LONG; `DWORD` and
// `LONG` are 64-bit on Linux and 32-bit on macOS (wintypes.h), so every conversion happens here.

var _SCARD_SCOPE_SYSTEM: DWORD { DWORD(SCARD_SCOPE_SYSTEM) }
var _SCARD_SHARE_SHARED: DWORD { DWORD(SCARD_SHARE_SHARED) }
var _SCARD_SHARE_EXCLUSIVE: DWORD { DWORD(SCARD_SHARE_EXCLUSIVE) }
var _SCARD_SHARE_DIRECT: DWORD { DWORD(SCARD_SHARE_DIRECT) }
var _SCARD_PROTOCOL_T0: DWORD { DWORD(SCARD_PROTOCOL_T0) }
var _SCARD_PROTOCOL_T1: DWORD { DWORD(SCARD_PROTOCOL_T1) }
var _SCARD_PROTOCOL_RAW: DWORD { DWORD(SCARD_PROTOCOL_RAW) }
var _MAX_BUFFER_SIZE: Int { Int(MAX_BUFFER_SIZE) }
var _MAX_BUFFER_SIZE_EXTENDED: Int { 4 + 3 + 65536 + 3 + 2 }  // MAX_BUFFER_SIZE_EXTENDED (a macro expression)
var _MAX_ATR_SIZE: Int { Int(MAX_ATR_SIZE) }
let _pnpNotificationReader = "\\\\?PnP?\\Notification"

/// A C return code as a typed result.
@inline(__always) func check(_ code: LONG) -> PCSCError? {
  code == LONG(SCARD_S_SUCCESS) ? nil : PCSCError(rawValue: UInt32(truncatingIfNeeded: code))
}
