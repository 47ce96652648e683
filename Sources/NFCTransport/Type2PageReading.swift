/// A Type 2 link that can read one page by itself, with no command sent for the pages after it.
///
/// READ (30h) answers four pages and wraps past the last one (NXP NTAG213/215/216 data sheet
/// §10.2), and a reader that maps READ onto READ BINARY may send several to make up the 16 bytes.
/// To find where an unknown chip's memory ends, a platform reads the pages past the CC's data area
/// one at a time until one is refused; that takes one command per page, and the first refused one
/// must be the last command sent, because a tag that NAKs a READ falls back to IDLE or HALT (NTAG
/// data sheet §8.4, state diagram) and answers nothing more until it is selected again.
public protocol Type2PageReading {
  /// Reads page `page` alone: its 4 bytes.
  /// - Throws: the reader's status or the tag's NAK when the page is not there or not readable;
  ///   `TransceiveError.malformedResponse(_:)` when the answer is not whole pages.
  func readPageAlone(_ page: UInt8) throws(TransceiveError) -> [UInt8]
}
