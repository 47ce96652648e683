import NFCTags
import NTAG424Originality

/// What `info` says of a tag's originality signature (NTAG 424 DNA: Read_Sig), checked here with
/// NXP's public key, then with the test key the virtual 424 DNA signs with (NXP AN12196 §7.2;
/// docs/ntag-424-dna.md). A signature that verifies with neither is reported, not an error: `info`
/// describes the tag in the field, whatever it is.
func originalityFact(_ read: OriginalitySignatureRead) -> TagInfoFact {
  let label = "Originality", key = "originality"
  if let problem = read.problem {
    return TagInfoFact(label, key: key, text: "not checked: \(problem)",
                       value: .members(["verdict": .string("unchecked"), "reason": .string(problem)]))
  }
  let verdict = OriginalitySignature.check(uid: read.uid, signature: read.signature)
  let text = switch verdict {
  case .nxp: "signature valid: signed by NXP (NXP's NTAG 424 DNA key)"
  case .testKey: "signature valid with the test key: a virtual tag, not NXP-signed"
  case .invalid: "not NXP-signed: the signature verifies with neither NXP's key nor the test key"
  case .unavailable: "not checked: OpenSSL's libcrypto (libcrypto.so.3) cannot be loaded; install libssl3"
  }
  return TagInfoFact(label, key: key, text: text, value: .members([
    "verdict": .string(verdict.rawValue), "uid": .bytes(read.uid), "signature": .bytes(read.signature),
  ]))
}
