// CPCSC is a C target so that its include/ folder, with the forwarding headers pcsclite.h and
// wintypes.h, reaches every module that imports it; its code is shim.h's inline functions.
#include "shim.h"
