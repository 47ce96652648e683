import DESFire
import EV2SecureMessaging
import NFCEmulator

/// The virtual DESFire EV3's SDM mirror (NFCEmulator's ``DESFireSDMMirroring``): EV2SecureMessaging's
/// ``SDMMirror``, the one mirror logic the virtual NTAG 424 DNA also runs, over libcrypto's AES
/// (``DESFireEV2Cipher``). RandomPadding of PICCData comes from the security's random source.
extension OpenSSLDESFireSecurity: DESFireSDMMirroring {
  package func sdmMirror(_ contents: [UInt8], layout: SDMMirrorLayout, uid: [UInt8], counter: UInt32,
                        keys: [[UInt8]]) -> [UInt8]? {
    let count = 5  // 16 − PICCDataTag − UID − SDMReadCtr (NT4H2421Gx §9.3.4)
    guard let padding = random.map({ Array($0(count).prefix(count)) }) ?? (try? DESFireCipher.random(count: count)) else { return nil }
    return try? SDMMirror<DESFireEV2Cipher>.apply(to: contents, layout: layout, uid: uid, counter: counter, keys: keys,
                                                  padding: padding)
  }
}
