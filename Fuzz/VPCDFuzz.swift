// libFuzzer entry point over the vpcd framing (VPCDFrame.decode, encode) and the bridge's
// handling of each decoded message (VPCDBridge.handle: control codes and APDUs to a reader face
// with a virtual tag; no socket is opened). Built by scripts/fuzz.sh with NFCTransport, NFCTags,
// NFCEmulator and NFCEmulatorVPCD.
//
// Input: the byte stream pcscd would send; its first byte also picks the tag and the face.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  // Framing: the frames and what is left over are exactly the input, and re-encode to it.
  var buffer = bytes
  let frames = VPCDFrame.decode(&buffer)
  guard frames.flatMap(VPCDFrame.encode) + buffer == bytes else { fatalError("vpcd frames do not re-encode to their input") }
  guard buffer.count < 2 || buffer.count < 2 + (Int(buffer[0]) << 8 | Int(buffer[1])) else {
    fatalError("decode left a complete frame in the buffer")
  }
  // Split in two reads, the same frames come out.
  let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
  var split = Array(bytes[..<cut])
  var twice = VPCDFrame.decode(&split)
  split += bytes[cut...]
  twice += VPCDFrame.decode(&split)
  guard twice == frames, split == buffer else { fatalError("decoding in two reads differs") }
  guard VPCDFrame.decode(&buffer).isEmpty else { fatalError("a second decode found a frame") }
  // The bridge answers every message; replies are framed and never empty.
  guard let first = bytes.first else { return 0 }
  let kinds = VirtualTagKind.allCases
  guard let tag = try? kinds[Int(first & 0x3F) % kinds.count].makeTag(uid: nil) else { return 0 }
  let card: any VirtualCard
  if first & 0x40 != 0, let face = try? PartThreeFace(tag: tag) { card = face } else { card = ACR122UFace(tag: tag) }
  let bridge = VPCDBridge(serving: VPCDServedCard(card: card), port: 1)
  for frame in frames {
    guard let reply = bridge.handle(frame) else { continue }
    guard !reply.isEmpty else { fatalError("an empty reply to \(frame)") }
    let framed = VPCDFrame.encode(reply)
    var again = framed
    guard VPCDFrame.decode(&again) == [reply] || reply.count > 0xFFFF else { fatalError("a reply does not frame") }
  }
  return 0
}
