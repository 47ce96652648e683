import NFCTags

/// Runs `body` and returns the `TagError` it threw, or nil.
public func tagError(_ body: () throws(TagError) -> Void) -> TagError? {
  do {
    try body()
    return nil
  } catch {
    return error
  }
}
