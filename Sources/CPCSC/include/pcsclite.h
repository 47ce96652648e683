// winscard.h includes <pcsclite.h>, which pcsc-lite installs in /usr/include/PCSC: this forwards
// to it, so that the module needs no -I from pkg-config (whose -pthread SwiftPM warns about).
#include <PCSC/pcsclite.h>
