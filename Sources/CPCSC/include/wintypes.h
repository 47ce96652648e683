// pcsclite.h includes <wintypes.h> from /usr/include/PCSC: forwarded, as pcsclite.h is.
#include <PCSC/wintypes.h>
