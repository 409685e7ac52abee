/*
 * The fleet benchmark's load and observer (bench/mqtt-fleet-bench.sh), on libmosquitto.
 *
 *   mqtt_fleet_load PORT DEVICES RATE SECONDS TOPIC_PREFIX [walk|fences]
 *
 * One process, two clients on the same broker:
 * - a publisher sends DEVICES simulated phones' OwnTracks locations, each device RATE fixes per
 *   second, for SECONDS, on owntracks/bench/d<N> (QoS 0: the load is paced, not acknowledged);
 *   with `walk` (default) every device walks its own straight line, so each fix is a new place;
 *   with `fences` device N goes back and forth through its own 100 m circle (fences_lat/lon
 *   below; the bench script writes the same circles as a GeoJSON file), 300 m either side of
 *   its centre, 20 m per fix: four region events per device every 60 fixes;
 * - an observer subscribes (QoS 1) to TOPIC_PREFIX# and counts what Locus sends back, and
 *   times a probe: every 100 ms the publisher sends one fix of device "probe" with a unique
 *   latitude and the observer notes when Locus's event with that latitude arrives (`fences`:
 *   each probe is a new device "probe<k>" whose first fix is inside the probe fence at
 *   latitude 10, so its region.enter comes at once).
 * It prints one JSON line: sent, received, probes sent/seen, latency p50/p99 (ms), and the
 * achieved send rate. Waits up to 10 s after the load for stragglers.
 */
#include <mosquitto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PROBES 100000

static long received;
static double probe_sent_at[MAX_PROBES];
static double probe_latency[MAX_PROBES];
static int probes_sent, probes_seen;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Device d's fence centre (the bench script writes the same circles, radius 100 m). */
static double fence_lat(int d) { return -60 + (d % 100) * 1.0; }
static double fence_lon(int d) { return -170 + (d / 100) * 3.0; }

/* Probe k has latitude 10 + k * 1e-5 (exactly representable in the 7 digits Locus keeps). */
static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg) {
    (void)m; (void)obj;
    /* Retained copies (the last location of each device, from an earlier run) are state, not this run's stream. */
    if (msg->retain) return;
    received++;
    if (!strstr(msg->topic, "probe")) return;
    const char *p = strstr((const char *)msg->payload, "\"lat\":");
    if (!p) return;
    double lat = atof(p + 6);
    int k = (int)((lat - 10) * 1e5 + 0.5);
    if (k >= 0 && k < probes_sent && probe_latency[k] == 0) {
        probe_latency[k] = now_s() - probe_sent_at[k];
        probes_seen++;
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s PORT DEVICES RATE SECONDS TOPIC_PREFIX [walk|fences]\n", argv[0]);
        return 2;
    }
    int fences = argc == 7 && strcmp(argv[6], "fences") == 0;
    int port = atoi(argv[1]), devices = atoi(argv[2]);
    double rate = atof(argv[3]), seconds = atof(argv[4]);
    const char *prefix = argv[5];
    mosquitto_lib_init();
    struct mosquitto *pub = mosquitto_new("bench-load", true, NULL);
    struct mosquitto *sub = mosquitto_new("bench-observer", true, NULL);
    mosquitto_message_callback_set(sub, on_message);
    mosquitto_max_inflight_messages_set(pub, 0);
    if (mosquitto_connect(pub, "127.0.0.1", port, 60) || mosquitto_connect(sub, "127.0.0.1", port, 60)) {
        fprintf(stderr, "cannot connect to 127.0.0.1:%d\n", port);
        return 2;
    }
    char filter[256];
    snprintf(filter, sizeof filter, "%s#", prefix);
    mosquitto_subscribe(sub, NULL, filter, 1);
    for (int i = 0; i < 20; i++) { mosquitto_loop(sub, 10, 1); mosquitto_loop(pub, 10, 1); }

    long sent = 0;
    double start = now_s(), next_probe = start;
    long total = (long)(devices * rate * seconds);
    long tst0 = (long)time(NULL);
    char topic[64], payload[256];
    while (sent < total) {
        double t = now_s() - start;
        long due = (long)(t * devices * rate);
        if (due > total) due = total;
        while (sent < due) {
            int d = (int)(sent % devices);
            long step = sent / devices;
            snprintf(topic, sizeof topic, "owntracks/bench/d%d", d);
            double lat, lon;
            if (fences) {
                /* A triangle wave of period 60 fixes, ±300 m (0.0027°) about the centre, starting south. */
                double phase = (double)(step % 60) / 60;
                double wave = phase < 0.5 ? -1 + 4 * phase : 3 - 4 * phase;
                lat = fence_lat(d) + 0.0027 * wave;
                lon = fence_lon(d);
            } else {
                lat = -60 + (d % 1000) * 0.1 + step * 0.0002;
                lon = -170 + (d / 1000) * 0.5;
            }
            int n = snprintf(payload, sizeof payload,
                             "{\"_type\":\"location\",\"lat\":%.7f,\"lon\":%.7f,\"acc\":5,\"tst\":%ld,\"tid\":\"bd\"}",
                             lat, lon, tst0 + step);
            mosquitto_publish(pub, NULL, topic, n, payload, 0, false);
            sent++;
            if ((sent & 255) == 0) mosquitto_loop(pub, 0, 1);
        }
        if (now_s() >= next_probe && probes_sent < MAX_PROBES) {
            int n = snprintf(payload, sizeof payload, "{\"_type\":\"location\",\"lat\":%.7f,\"lon\":20,\"acc\":5,\"tst\":%ld,\"tid\":\"pr\"}",
                             10 + probes_sent * 1e-5, tst0 + probes_sent);
            probe_sent_at[probes_sent] = now_s();
            probes_sent++;
            char probe_topic[64];
            if (fences) snprintf(probe_topic, sizeof probe_topic, "owntracks/bench/probe%d", probes_sent - 1);
            else snprintf(probe_topic, sizeof probe_topic, "owntracks/bench/probe");
            mosquitto_publish(pub, NULL, probe_topic, n, payload, 0, false);
            next_probe += 0.1;
        }
        mosquitto_loop(pub, 0, 1);
        mosquitto_loop(sub, 1, 1);
    }
    double elapsed = now_s() - start;
    double deadline = now_s() + 10;
    long last = -1;
    double quiet_since = now_s();
    while (now_s() < deadline) {
        mosquitto_loop(pub, 5, 1);
        mosquitto_loop(sub, 20, 1);
        if (received != last) { last = received; quiet_since = now_s(); }
        else if (now_s() - quiet_since > 2) break;
    }
    double lat[MAX_PROBES];
    int n = 0;
    for (int k = 0; k < probes_sent; k++) if (probe_latency[k] > 0) lat[n++] = probe_latency[k] * 1000;
    qsort(lat, n, sizeof lat[0], cmp);
    printf("{\"sent\":%ld,\"received\":%ld,\"seconds\":%.2f,\"send_rate\":%.0f,\"probes_sent\":%d,\"probes_seen\":%d,"
           "\"latency_p50_ms\":%.1f,\"latency_p99_ms\":%.1f}\n",
           sent, received, elapsed, sent / elapsed, probes_sent, probes_seen,
           n ? lat[n / 2] : -1.0, n ? lat[(int)(n * 0.99)] : -1.0);
    mosquitto_destroy(pub);
    mosquitto_destroy(sub);
    mosquitto_lib_cleanup();
    return 0;
}
