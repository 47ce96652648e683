import NFCTransport

/// Builds the Type 1 platform for a detected target.
func makeType1Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  throw .unsupported("Type 1 tags are not supported yet")
}
