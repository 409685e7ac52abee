/* The cost of the cryptography libzmq's CURVE runs for every frame it sends (ZMTP CURVE's
 * MESSAGE command: libsodium's crypto_box_easy_afternm, XSalsa20-Poly1305 with the session's
 * precomputed key, over 1 flags byte + the frame) and receives (crypto_box_open_easy_afternm),
 * on its own: no allocation, copy or socket I/O. curve-bench.sh uses it to show how much of
 * CURVE's cost is the cipher itself.
 *
 * usage: curve_box_cost FRAME_BYTES... (prints "BYTES seal_us open_us" per size)
 * build: cc -O2 bench/curve_box_cost.c -lsodium
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (sodium_init() < 0 || argc < 2) {
        fprintf(stderr, "usage: curve_box_cost FRAME_BYTES...\n");
        return 2;
    }
    unsigned char server_pk[crypto_box_PUBLICKEYBYTES], server_sk[crypto_box_SECRETKEYBYTES];
    unsigned char client_pk[crypto_box_PUBLICKEYBYTES], client_sk[crypto_box_SECRETKEYBYTES];
    unsigned char key[crypto_box_BEFORENMBYTES];
    crypto_box_keypair(server_pk, server_sk);
    crypto_box_keypair(client_pk, client_sk);
    if (crypto_box_beforenm(key, client_pk, server_sk) != 0) return 1;
    const int n = 500000;
    for (int a = 1; a < argc; a++) {
        size_t frame = (size_t)atoi(argv[a]);
        size_t plain_len = 1 + frame; /* the flags byte, then the frame */
        unsigned char *plain = malloc(plain_len), *boxed = malloc(plain_len + crypto_box_MACBYTES);
        unsigned char *opened = malloc(plain_len);
        unsigned char nonces[256][crypto_box_NONCEBYTES];
        unsigned char *boxes = malloc(256 * (plain_len + crypto_box_MACBYTES));
        if (!plain || !boxed || !opened || !boxes) return 1;
        memset(plain, 'x', plain_len);
        for (int i = 0; i < 256; i++) {
            randombytes_buf(nonces[i], sizeof nonces[i]);
            crypto_box_easy_afternm(boxes + (size_t)i * (plain_len + crypto_box_MACBYTES), plain, plain_len, nonces[i], key);
        }
        double t0 = now();
        for (int i = 0; i < n; i++) crypto_box_easy_afternm(boxed, plain, plain_len, nonces[i & 255], key);
        double t1 = now();
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad |= crypto_box_open_easy_afternm(opened, boxes + (size_t)(i & 255) * (plain_len + crypto_box_MACBYTES),
                                                plain_len + crypto_box_MACBYTES, nonces[i & 255], key);
        double t2 = now();
        if (bad) { fprintf(stderr, "a box did not open\n"); return 1; }
        printf("%zu %.3f %.3f\n", frame, (t1 - t0) / n * 1e6, (t2 - t1) / n * 1e6);
        free(plain); free(boxed); free(opened); free(boxes);
    }
    return 0;
}
