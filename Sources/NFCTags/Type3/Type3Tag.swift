import NFCTransport

/// Builds the Type 3 platform for a detected target.
func makeType3Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  throw .unsupported("Type 3 tags are not supported yet")
}
