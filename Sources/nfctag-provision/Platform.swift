// The C library, for every file of this program: one import here instead of one per file, and
// the program's only test for a C library or an OS (docs/platforms.md: what a port changes).
// `@_exported` makes it visible module-wide; an executable has no clients it could leak to.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#else
#error("nfctag-provision: no C library for this platform yet (docs/platforms.md)")
#endif
