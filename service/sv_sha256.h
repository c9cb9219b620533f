/*
** sv_sha256.h - SHA-256 (FIPS 180-4), for the hashes of API keys
** (sv_keys.c).  Internal to lraf; lraf_key_hash is its public face.
*/
#ifndef SV_SHA256_H
#define SV_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SV_SHA256_SIZE 32

/* The digest of the len bytes at data. */
void sv_sha256(const void *data, size_t len, uint8_t out[SV_SHA256_SIZE]);

#endif
