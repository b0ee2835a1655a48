// The slice of OpenSSL's libcrypto that StoryGate uses, plus typed wrappers for its
// function-like macros (Swift cannot call C macros). Only IDTokens/OpenSSL.swift imports this.
#ifndef STORYGATE_COPENSSL_SHIM_H
#define STORYGATE_COPENSSL_SHIM_H

#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#endif
