#ifndef CPCSC_SHIM_H
#define CPCSC_SHIM_H

#ifdef __APPLE__
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#else
// Through their PCSC/ folder, with pcsclite.h and wintypes.h forwarded beside this file.
#include <PCSC/winscard.h>
#include <PCSC/reader.h>
#endif

/// The protocol control information for T=0, which Swift cannot import as a macro.
static inline const SCARD_IO_REQUEST *CPCSC_pciT0(void) { return SCARD_PCI_T0; }
/// The protocol control information for T=1.
static inline const SCARD_IO_REQUEST *CPCSC_pciT1(void) { return SCARD_PCI_T1; }
/// The protocol control information for raw mode.
static inline const SCARD_IO_REQUEST *CPCSC_pciRaw(void) { return SCARD_PCI_RAW; }
/// `SCARD_CTL_CODE(code)`: the platform's control-code formula.
static inline DWORD CPCSC_ctlCode(DWORD code) { return SCARD_CTL_CODE(code); }

#endif
