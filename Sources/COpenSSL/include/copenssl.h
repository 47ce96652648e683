#ifndef COPENSSL_H
#define COPENSSL_H

// ECDSA on secp224r1 through the system's OpenSSL libcrypto (Debian: libssl-dev), for the NTAG
// 424 DNA's originality signature (NXP AN12196 §7.2), whose curve swift-crypto does not have.
// The functions take and give raw bytes; OpenSSL's own headers stay inside copenssl.c, which
// loads libcrypto (libcrypto.so.3) at the first call rather than linking it.

#include <stddef.h>
#include <stdint.h>

/// Loads libcrypto (once; thread-safe). Returns 1 when it is loaded with every function used, else 0.
int copenssl_available(void);

/// Checks `signature` (r || s, each `signature_length / 2` bytes, big-endian) over `message` used
/// as the ECDSA integer as it is, with no hash (NXP's originality signature signs the UID so),
/// with the secp224r1 public key `public_key` (SEC1: 04 || X || Y, 57 bytes).
/// Returns 1 when it verifies, 0 when it does not, -1 when the key is not a point of the curve or
/// OpenSSL fails, -2 when libcrypto cannot be loaded.
int copenssl_p224_verify(const uint8_t *public_key, size_t public_key_length,
                         const uint8_t *message, size_t message_length,
                         const uint8_t *signature, size_t signature_length);

/// Signs `message` (used as the ECDSA integer as it is, no hash) with the secp224r1 private key
/// in `private_key_pem` (PEM, `length` bytes) and writes r || s, 28 bytes each, to
/// `signature_out` (56 bytes). Returns 0, -1 when the key cannot be read or OpenSSL fails, -2 when
/// libcrypto cannot be loaded.
int copenssl_p224_sign(const char *private_key_pem, size_t length,
                       const uint8_t *message, size_t message_length, uint8_t *signature_out);

#endif
