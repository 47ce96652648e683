#ifndef COPENSSL_H
#define COPENSSL_H

// ECDSA on secp224r1 through the system's OpenSSL libcrypto (Debian: libssl-dev), for the NTAG
// 424 DNA's originality signature (NXP AN12196 §7.2), whose curve swift-crypto does not have; and
// 3DES and AES in CBC, CMAC and random bytes for MIFARE DESFire (swift-crypto has no DES).
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

/// Triple DES in EDE3 form (a 24-byte key K1 K2 K3; 2K3DES is K1 K2 K1, single DES K K K), 8-byte blocks.
#define COPENSSL_DES_EDE3 1
/// AES-128 (a 16-byte key), 16-byte blocks.
#define COPENSSL_AES_128 2

/// CBC encryption (`encrypt` 1) or decryption (0) of `length` bytes, a whole number of blocks, with
/// no padding, from `input` to `output` (`length` bytes; may not overlap), with the IV `iv` (one
/// block). Returns 0, -1 for a bad algorithm or length or when OpenSSL fails, -2 when libcrypto
/// cannot be loaded. For MIFARE DESFire's secure messaging (NXP MF3ICDx21_41_81 §9).
int copenssl_cbc(int algorithm, int encrypt, const uint8_t *key, const uint8_t *iv,
                 const uint8_t *input, size_t length, uint8_t *output);

/// The CMAC (NIST SP 800-38B) of `message` under `key`, one block long (8 bytes for 3DES, 16 for
/// AES), to `mac_out`. Returns 0, -1 when OpenSSL fails, -2 when libcrypto cannot be loaded.
int copenssl_cmac(int algorithm, const uint8_t *key, const uint8_t *message, size_t length, uint8_t *mac_out);

/// `length` random bytes from OpenSSL's generator. Returns 0, -1 when it fails, -2 when libcrypto
/// cannot be loaded.
int copenssl_random(uint8_t *output, size_t length);

#endif
