// The slice of OpenSSL's libcrypto that StoryGate uses, plus typed wrappers for its
// function-like macros (Swift cannot call C macros). Only IDTokens/OpenSSL/OpenSSL.swift imports this.
#ifndef STORYGATE_COPENSSL_SHIM_H
#define STORYGATE_COPENSSL_SHIM_H

#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

/// `BIO_get_mem_data`: the bytes written so far to a memory BIO (not owned by the caller).
static inline long storygate_BIO_get_mem_data(BIO *_Nonnull bio, char *_Nullable *_Nonnull data) {
    return BIO_get_mem_data(bio, data);
}

/// `OPENSSL_free`.
static inline void storygate_OPENSSL_free(void *_Nullable pointer) {
    OPENSSL_free(pointer);
}

/// `MBSTRING_ASC`: the string type for `X509_NAME_add_entry_by_txt` with ASCII input.
static inline int storygate_MBSTRING_ASC(void) {
    return MBSTRING_ASC;
}

/// `RSA_PKCS1_PADDING` and `RSA_NO_PADDING`.
static inline int storygate_RSA_PKCS1_PADDING(void) { return RSA_PKCS1_PADDING; }
static inline int storygate_RSA_NO_PADDING(void) { return RSA_NO_PADDING; }

/// `EVP_PKEY_RSA`: the base id of RSA keys.
static inline int storygate_EVP_PKEY_RSA(void) { return EVP_PKEY_RSA; }

/// `EVP_PKEY_PUBLIC_KEY`: the selection for `EVP_PKEY_fromdata` that builds a public key.
static inline int storygate_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

/// Pushes an RSA public key's `n` and `e` onto a parameter builder. The builder keeps the name pointers until
/// `OSSL_PARAM_BLD_to_param`, so the names must be C literals (a Swift string argument would dangle).
static inline int storygate_OSSL_PARAM_BLD_push_RSA_public(OSSL_PARAM_BLD *_Nonnull builder, const BIGNUM *_Nonnull n, const BIGNUM *_Nonnull e) {
    return OSSL_PARAM_BLD_push_BN(builder, "n", n) == 1 && OSSL_PARAM_BLD_push_BN(builder, "e", e) == 1;
}

#endif
