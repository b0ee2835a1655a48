/*
 * How close StoryGate's RS256 verification is to what OpenSSL's arithmetic allows: one 2048-bit public-key
 * operation (e = 65537) timed four ways on one thread -- EVP_PKEY_verify on a pre-initialised context,
 * RSA_public_decrypt without padding, BN_mod_exp_mont with a cached Montgomery context (the arithmetic alone), and
 * the chain StoryGate runs (OpenSSLPublicKey.power: the signature into Montgomery form, sixteen squarings, one
 * multiplication by the signature itself) -- plus one Montgomery squaring and one multiplication. BENCHMARKS.md
 * ("Side by side with HAProxy").
 *
 *   cc -O2 bench/rsa/floor.c -o /tmp/rsa-floor -lcrypto && /tmp/rsa-floor
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void report(const char *what, double elapsed, int count) {
    printf("%-52s %7.2f us  (%.0f per second)\n", what, elapsed / count * 1e6, count / elapsed);
}

int main(void) {
    enum { N = 50000 };
    EVP_PKEY *key = EVP_RSA_gen(2048);
    if (key == NULL) return 1;
    unsigned char digest[32] = {1, 2, 3}, signature[256], out[256];
    size_t length = sizeof signature;
    EVP_PKEY_CTX *sign = EVP_PKEY_CTX_new(key, NULL);
    if (EVP_PKEY_sign_init(sign) != 1 || EVP_PKEY_CTX_set_rsa_padding(sign, RSA_PKCS1_PADDING) != 1 ||
        EVP_PKEY_CTX_set_signature_md(sign, EVP_sha256()) != 1 || EVP_PKEY_sign(sign, signature, &length, digest, 32) != 1)
        return 1;

    EVP_PKEY_CTX *verify = EVP_PKEY_CTX_new(key, NULL);
    if (EVP_PKEY_verify_init(verify) != 1 || EVP_PKEY_CTX_set_rsa_padding(verify, RSA_PKCS1_PADDING) != 1 ||
        EVP_PKEY_CTX_set_signature_md(verify, EVP_sha256()) != 1)
        return 1;
    int valid = 0;
    double start = seconds();
    for (int i = 0; i < N; i++) valid += EVP_PKEY_verify(verify, signature, length, digest, 32) == 1;
    report("EVP_PKEY_verify (pre-initialised context)", seconds() - start, N);

    RSA *rsa = (RSA *)EVP_PKEY_get0_RSA(key);
    start = seconds();
    for (int i = 0; i < N; i++) valid += RSA_public_decrypt(256, signature, out, rsa, RSA_NO_PADDING) == 256;
    report("RSA_public_decrypt (no padding check)", seconds() - start, N);

    const BIGNUM *n = NULL, *e = NULL;
    RSA_get0_key(rsa, &n, &e, NULL);
    BN_CTX *bn = BN_CTX_new();
    BN_MONT_CTX *mont = BN_MONT_CTX_new();
    BIGNUM *s = BN_bin2bn(signature, 256, NULL), *m = BN_new();
    if (BN_MONT_CTX_set(mont, n, bn) != 1) return 1;
    start = seconds();
    for (int i = 0; i < N; i++) BN_mod_exp_mont(m, s, e, n, bn, mont);
    report("BN_mod_exp_mont (the arithmetic alone)", seconds() - start, N);
    BIGNUM *reference = BN_new(), *sBar = BN_new();
    BN_mod_exp_mont(reference, s, e, n, bn, mont);
    start = seconds();
    for (int i = 0; i < N; i++) {
        BN_to_montgomery(sBar, s, mont, bn);
        BN_mod_mul_montgomery(m, sBar, sBar, mont, bn);
        for (int k = 1; k < 16; k++) BN_mod_mul_montgomery(m, m, m, mont, bn);
        BN_mod_mul_montgomery(m, m, s, mont, bn);
    }
    report("StoryGate's chain: 16 squarings, 2 multiplications", seconds() - start, N);
    if (BN_cmp(m, reference) != 0) return 1;
    start = seconds();
    for (int i = 0; i < N; i++) BN_mod_mul_montgomery(m, s, s, mont, bn);
    report("one 2048-bit Montgomery squaring", seconds() - start, N);
    start = seconds();
    for (int i = 0; i < N; i++) BN_mod_mul_montgomery(m, s, sBar, mont, bn);
    report("one 2048-bit Montgomery multiplication", seconds() - start, N);

    printf("valid verifications: %d of %d\n", valid, 2 * N);
    return valid == 2 * N ? 0 : 1;
}
