import NFCTransport

/// Builds the Type 5 platform for a detected target.
func makeType5Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  throw .unsupported("Type 5 tags are not supported yet")
}
