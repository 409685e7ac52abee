// libnats (Debian libnats-dev), the NATS C client, loaded on first use instead of at program start.
//
// The declarations are libnats's own. The definitions Swift links against are in nats_loader.c:
// each forwards to the function of the same name in libnats.so.3.4, which locus_nats_load() opens
// with dlopen. So a daemon without a `nats` entry never maps libnats nor the TLS libraries it
// needs, and a device without libnats3.4 installed runs everything else (as CMosquitto does).
#ifndef LOCUS_CNATS_H
#define LOCUS_CNATS_H

#include <stddef.h>
#include <nats/nats.h>

/// Opens libnats.so.3.4 and resolves every libnats function Locus calls, once per process (later
/// calls return the first outcome). Returns 0 when it is loaded; otherwise -1 with the loader's
/// message (NUL-terminated, truncated to `size`) in `error`. No other function of this module may
/// be called before it has returned 0.
int locus_nats_load(char *error, size_t size);

#endif
