// libmosquitto (Debian libmosquitto-dev), the MQTT client library of the Mosquitto project,
// loaded on first use instead of at program start.
//
// The declarations are libmosquitto's own. The definitions Swift links against are in
// mosquitto_loader.c: each forwards to the function of the same name in libmosquitto.so.1,
// which locus_mosquitto_load() opens with dlopen. So a daemon without an `mqtt` entry never maps
// libmosquitto, nor the TLS libraries it needs (libssl, libcrypto: ~1.6 MB resident, issue 14),
// and a device without libmosquitto1 installed runs everything else.
#ifndef LOCUS_CMOSQUITTO_H
#define LOCUS_CMOSQUITTO_H

#include <stddef.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// Opens libmosquitto.so.1 and resolves every libmosquitto function Locus calls, once per
/// process (later calls return the first outcome). Returns 0 when it is loaded; otherwise -1 with
/// the loader's message (NUL-terminated, truncated to `size`) in `error`. No other function of
/// this module may be called before it has returned 0.
int locus_mosquitto_load(char *error, size_t size);

#endif
