// The C library, for every file of this program: one import here instead of one per file.
// `@_exported` makes it visible module-wide; an executable has no clients it could leak to.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#endif
