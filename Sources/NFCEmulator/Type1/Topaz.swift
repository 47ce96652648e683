/// A Topaz 512 with factory content.
func makeTopaz512(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("Topaz 512 is not emulated yet")
}

/// A Topaz 512 from a memory image (bytes in address order).
func makeTopaz512(image: [UInt8]) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("Topaz 512 is not emulated yet")
}
