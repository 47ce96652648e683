import NFCEmulator

/// Installs the virtual NTAG 424 DNA (``NTAG424DNAVirtualTag``) as the factory of
/// `VirtualTagKind.ntag424dna` in NFCEmulator's `VirtualTagFactories.shared`, so that every way
/// a program makes a tag by kind builds it: `VirtualTagKind.makeTag`, `sim:ntag424dna` readers,
/// feeds that name it, image files (`ImageFile`).
///
/// Call it once at the start of a program that links this module, as the module's name:
///
/// ```swift
/// import NTAG424Emulator
///
/// NTAG424Emulator.register()
/// ```
///
/// Idempotent: a second call installs the same factory again and changes nothing. Without it, a
/// tag of that kind is refused with NFCEmulator's `EmulatorError` whose reason is
/// `kindNotLinked(.ntag424dna)`. The model is in a module of its own because its AES and CMAC
/// come from swift-crypto (BoringSSL), which programs that link NFCEmulator must not have to carry.
public func register() {
  VirtualTagFactories.register(
    .ntag424dna,
    make: { uid throws(EmulatorError) in try NTAG424DNAVirtualTag(uid: uid) },
    loadImage: { image, uid throws(EmulatorError) in try NTAG424DNAVirtualTag(image: image, uid: uid) })
}
