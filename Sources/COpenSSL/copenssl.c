// ECDSA on secp224r1 with OpenSSL 3's EVP API, and for MIFARE DESFire the block ciphers (3DES in
// EDE3 form, AES-128) in CBC without padding, CMAC (NIST SP 800-38B) and random bytes. Nothing here
// computes on the curve or a cipher: OpenSSL does.
//
// libcrypto is loaded with dlopen at the first call, not linked: linked, its load and
// initialisation cost every start of a program 2.5 M instructions (callgrind, a C program's
// start from 0.12 M to 2.6 M), a quarter of `nfctag --version`, for the one command that checks
// a signature. Each function is looked up by name and typed from OpenSSL's own header
// (`__typeof__`), so a call through the table is checked by the compiler as a direct one.
#include "copenssl.h"

#include <dlfcn.h>
#include <pthread.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

// The functions used, each as `X(name)`.
#define COPENSSL_FUNCTIONS(X) \
  X(BIO_free) X(BIO_new_mem_buf) X(BN_bin2bn) X(BN_bn2binpad) X(BN_free) X(CRYPTO_free) \
  X(ECDSA_SIG_free) X(ECDSA_SIG_get0_r) X(ECDSA_SIG_get0_s) X(ECDSA_SIG_new) X(ECDSA_SIG_set0) \
  X(EVP_PKEY_CTX_free) X(EVP_PKEY_CTX_new) X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_free) \
  X(EVP_PKEY_fromdata) X(EVP_PKEY_fromdata_init) X(EVP_PKEY_sign) X(EVP_PKEY_sign_init) \
  X(EVP_PKEY_verify) X(EVP_PKEY_verify_init) X(OSSL_PARAM_construct_end) \
  X(OSSL_PARAM_construct_octet_string) X(OSSL_PARAM_construct_utf8_string) \
  X(PEM_read_bio_PrivateKey) X(d2i_ECDSA_SIG) X(i2d_ECDSA_SIG) \
  X(EVP_CIPHER_CTX_new) X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_set_padding) X(EVP_CipherInit_ex) \
  X(EVP_CipherUpdate) X(EVP_CipherFinal_ex) X(EVP_des_ede3_cbc) X(EVP_aes_128_cbc) \
  X(EVP_MAC_fetch) X(EVP_MAC_free) X(EVP_MAC_CTX_new) X(EVP_MAC_CTX_free) X(EVP_MAC_init) \
  X(EVP_MAC_update) X(EVP_MAC_final) X(RAND_bytes)

static struct {
#define COPENSSL_FIELD(name) __typeof__(name) *name;
  COPENSSL_FUNCTIONS(COPENSSL_FIELD)
#undef COPENSSL_FIELD
} crypto;

static int crypto_loaded;  // 1 loaded, -1 not loadable
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void load_crypto(void) {
  // OpenSSL 3's soname (Debian: libssl3, libssl3t64).
  void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
  crypto_loaded = library == NULL ? -1 : 1;
#define COPENSSL_LOAD(name) \
  if (library != NULL && (crypto.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) crypto_loaded = -1;
  COPENSSL_FUNCTIONS(COPENSSL_LOAD)
#undef COPENSSL_LOAD
}

int copenssl_available(void) {
  pthread_once(&crypto_once, load_crypto);
  return crypto_loaded == 1;
}

// From here on, OpenSSL's names are the table's entries.
#define BIO_free crypto.BIO_free
#define BIO_new_mem_buf crypto.BIO_new_mem_buf
#define BN_bin2bn crypto.BN_bin2bn
#define BN_bn2binpad crypto.BN_bn2binpad
#define BN_free crypto.BN_free
#define ECDSA_SIG_free crypto.ECDSA_SIG_free
#define ECDSA_SIG_get0_r crypto.ECDSA_SIG_get0_r
#define ECDSA_SIG_get0_s crypto.ECDSA_SIG_get0_s
#define ECDSA_SIG_new crypto.ECDSA_SIG_new
#define ECDSA_SIG_set0 crypto.ECDSA_SIG_set0
#define EVP_PKEY_CTX_free crypto.EVP_PKEY_CTX_free
#define EVP_PKEY_CTX_new crypto.EVP_PKEY_CTX_new
#define EVP_PKEY_CTX_new_from_name crypto.EVP_PKEY_CTX_new_from_name
#define EVP_PKEY_free crypto.EVP_PKEY_free
#define EVP_PKEY_fromdata crypto.EVP_PKEY_fromdata
#define EVP_PKEY_fromdata_init crypto.EVP_PKEY_fromdata_init
#define EVP_PKEY_sign crypto.EVP_PKEY_sign
#define EVP_PKEY_sign_init crypto.EVP_PKEY_sign_init
#define EVP_PKEY_verify crypto.EVP_PKEY_verify
#define EVP_PKEY_verify_init crypto.EVP_PKEY_verify_init
#define OSSL_PARAM_construct_end crypto.OSSL_PARAM_construct_end
#define OSSL_PARAM_construct_octet_string crypto.OSSL_PARAM_construct_octet_string
#define OSSL_PARAM_construct_utf8_string crypto.OSSL_PARAM_construct_utf8_string
#define PEM_read_bio_PrivateKey crypto.PEM_read_bio_PrivateKey
#define d2i_ECDSA_SIG crypto.d2i_ECDSA_SIG
#define i2d_ECDSA_SIG crypto.i2d_ECDSA_SIG
#define EVP_CIPHER_CTX_new crypto.EVP_CIPHER_CTX_new
#define EVP_CIPHER_CTX_free crypto.EVP_CIPHER_CTX_free
#define EVP_CIPHER_CTX_set_padding crypto.EVP_CIPHER_CTX_set_padding
#define EVP_CipherInit_ex crypto.EVP_CipherInit_ex
#define EVP_CipherUpdate crypto.EVP_CipherUpdate
#define EVP_CipherFinal_ex crypto.EVP_CipherFinal_ex
#define EVP_des_ede3_cbc crypto.EVP_des_ede3_cbc
#define EVP_aes_128_cbc crypto.EVP_aes_128_cbc
#define EVP_MAC_fetch crypto.EVP_MAC_fetch
#define EVP_MAC_free crypto.EVP_MAC_free
#define EVP_MAC_CTX_new crypto.EVP_MAC_CTX_new
#define EVP_MAC_CTX_free crypto.EVP_MAC_CTX_free
#define EVP_MAC_init crypto.EVP_MAC_init
#define EVP_MAC_update crypto.EVP_MAC_update
#define EVP_MAC_final crypto.EVP_MAC_final
#define RAND_bytes crypto.RAND_bytes
#define copenssl_free(pointer) crypto.CRYPTO_free((pointer), __FILE__, __LINE__)

/// The size of r and of s on secp224r1.
enum { P224_HALF = 28 };

static EVP_PKEY *p224_public_key(const uint8_t *point, size_t length) {
  OSSL_PARAM params[] = {
    OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"secp224r1", 0),
    OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, length),
    OSSL_PARAM_construct_end(),
  };
  EVP_PKEY *key = NULL;
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  if (context == NULL || EVP_PKEY_fromdata_init(context) != 1
      || EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
    key = NULL;
  }
  EVP_PKEY_CTX_free(context);
  return key;
}

/// r || s to the DER ECDSA-Sig-Value OpenSSL verifies; its length, or -1.
static int der_signature(const uint8_t *raw, size_t length, unsigned char **der) {
  if (length == 0 || length % 2 != 0) return -1;
  ECDSA_SIG *signature = ECDSA_SIG_new();
  BIGNUM *r = BN_bin2bn(raw, (int)(length / 2), NULL);
  BIGNUM *s = BN_bin2bn(raw + length / 2, (int)(length / 2), NULL);
  if (signature == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(signature, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(signature);
    return -1;
  }
  int count = i2d_ECDSA_SIG(signature, der);  // owns r and s now
  ECDSA_SIG_free(signature);
  return count;
}

int copenssl_p224_verify(const uint8_t *public_key, size_t public_key_length,
                         const uint8_t *message, size_t message_length,
                         const uint8_t *signature, size_t signature_length) {
  if (!copenssl_available()) return -2;
  EVP_PKEY *key = p224_public_key(public_key, public_key_length);
  if (key == NULL) return -1;
  unsigned char *der = NULL;
  int der_length = der_signature(signature, signature_length, &der);
  int result = 0;
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(key, NULL);
  if (context == NULL || EVP_PKEY_verify_init(context) != 1) {
    result = -1;
  } else if (der_length > 0) {
    // No digest is set, so the message is the integer the signature is over (SEC 1 §4.1.4).
    result = EVP_PKEY_verify(context, der, (size_t)der_length, message, message_length) == 1 ? 1 : 0;
  }
  copenssl_free(der);
  EVP_PKEY_CTX_free(context);
  EVP_PKEY_free(key);
  return result;
}

int copenssl_p224_sign(const char *private_key_pem, size_t length,
                       const uint8_t *message, size_t message_length, uint8_t *signature_out) {
  if (!copenssl_available()) return -2;
  BIO *pem = BIO_new_mem_buf(private_key_pem, (int)length);
  EVP_PKEY *key = pem == NULL ? NULL : PEM_read_bio_PrivateKey(pem, NULL, NULL, NULL);
  BIO_free(pem);
  if (key == NULL) return -1;
  int result = -1;
  unsigned char der[128];
  size_t der_length = sizeof der;
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(key, NULL);
  if (context != NULL && EVP_PKEY_sign_init(context) == 1
      && EVP_PKEY_sign(context, der, &der_length, message, message_length) == 1) {
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)der_length);
    if (signature != NULL
        && BN_bn2binpad(ECDSA_SIG_get0_r(signature), signature_out, P224_HALF) == P224_HALF
        && BN_bn2binpad(ECDSA_SIG_get0_s(signature), signature_out + P224_HALF, P224_HALF) == P224_HALF) {
      result = 0;
    }
    ECDSA_SIG_free(signature);
  }
  EVP_PKEY_CTX_free(context);
  EVP_PKEY_free(key);
  return result;
}

// MARK: - Block ciphers for MIFARE DESFire

/// The cipher and its key length for a `COPENSSL_*` algorithm; NULL for another value.
static const EVP_CIPHER *block_cipher(int algorithm, size_t *key_length) {
  switch (algorithm) {
  case COPENSSL_DES_EDE3: *key_length = 24; return EVP_des_ede3_cbc();
  case COPENSSL_AES_128: *key_length = 16; return EVP_aes_128_cbc();
  default: return NULL;
  }
}

int copenssl_cbc(int algorithm, int encrypt, const uint8_t *key, const uint8_t *iv,
                 const uint8_t *input, size_t length, uint8_t *output) {
  if (!copenssl_available()) return -2;
  size_t key_length = 0;
  const EVP_CIPHER *cipher = block_cipher(algorithm, &key_length);
  size_t block = algorithm == COPENSSL_AES_128 ? 16 : 8;
  if (cipher == NULL || length % block != 0 || length > 0x7FFFFFFF) return -1;
  EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
  int written = 0, final_length = 0, result = -1;
  if (context != NULL && EVP_CipherInit_ex(context, cipher, NULL, key, iv, encrypt ? 1 : 0) == 1
      && EVP_CIPHER_CTX_set_padding(context, 0) == 1
      && EVP_CipherUpdate(context, output, &written, input, (int)length) == 1
      && EVP_CipherFinal_ex(context, output + written, &final_length) == 1
      && (size_t)(written + final_length) == length) {
    result = 0;
  }
  EVP_CIPHER_CTX_free(context);
  (void)key_length;
  return result;
}

int copenssl_cmac(int algorithm, const uint8_t *key, const uint8_t *message, size_t length, uint8_t *mac_out) {
  if (!copenssl_available()) return -2;
  size_t key_length = 0;
  if (block_cipher(algorithm, &key_length) == NULL) return -1;
  const char *name = algorithm == COPENSSL_AES_128 ? "AES-128-CBC" : "DES-EDE3-CBC";
  size_t mac_length = algorithm == COPENSSL_AES_128 ? 16 : 8, out_length = 0;
  OSSL_PARAM params[] = {
    OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *)name, 0),
    OSSL_PARAM_construct_end(),
  };
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
  EVP_MAC_CTX *context = mac == NULL ? NULL : EVP_MAC_CTX_new(mac);
  int result = -1;
  if (context != NULL && EVP_MAC_init(context, key, key_length, params) == 1
      && EVP_MAC_update(context, message, length) == 1
      && EVP_MAC_final(context, mac_out, &out_length, mac_length) == 1 && out_length == mac_length) {
    result = 0;
  }
  EVP_MAC_CTX_free(context);
  EVP_MAC_free(mac);
  return result;
}

int copenssl_random(uint8_t *output, size_t length) {
  if (!copenssl_available()) return -2;
  if (length > 0x7FFFFFFF) return -1;
  return RAND_bytes(output, (int)length) == 1 ? 0 : -1;
}
