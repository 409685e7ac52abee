/*
 * The NATS fleet benchmark's load, observer and anchor (bench/nats-fleet-bench.sh), on libnats.
 *
 *   nats_fleet_load load URL DEVICES RATE SECONDS PARTITIONS KILL_AT
 *   nats_fleet_load anchor URL MESSAGES
 *
 * load: one process, two connections to the same server:
 * - a publisher sends DEVICES simulated phones' OwnTracks locations, each device RATE fixes per
 *   second, for SECONDS, on locus.fixes.<p>.d<N> (p: FNV-1a 32 of "d<N>" mod PARTITIONS, the
 *   partition Locus documents), as plain NATS publishes (paced, not acknowledged: the stream
 *   LOCUS_FIXES stores them). Device N goes back and forth through its own 100 m circle
 *   (fence_lat/lon below; the bench script writes the same circles), 300 m either side of its
 *   centre, 20 m per fix: four region events per device every 60 fixes;
 * - every 100 ms a probe: a new device "probe<k>" whose first fix is inside the probe fence, so
 *   Locus's region.enter for it comes at once; an observer subscribed to locus.events.> notes when
 *   it arrives (latency), and counts every event message it sees.
 * KILL_AT (seconds into the load, 0: never) only splits the probe latencies into before and
 * after (the script kills a server then): p99 after, and the longest probe wait after.
 * It prints one JSON line: sent, events seen, probes sent/seen, latency p50/p99 (ms) overall,
 * before and after KILL_AT, and the achieved send rate. Waits up to 20 s for stragglers.
 *
 * anchor: what nats-server itself takes on this machine: MESSAGES messages of 120 bytes
 * published to the stream LOCUS_ANCHOR (file storage, created here) with JetStream
 * asynchronous publishes, every one acknowledged; prints the rate.
 */
#include <nats/nats.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROBES 100000

static atomic_long events_seen;
static double probe_sent_at[MAX_PROBES];
static double probe_latency[MAX_PROBES];
static atomic_int probes_sent, probes_seen;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t fnv1a(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) { h ^= (uint8_t)*s; h *= 16777619u; }
    return h;
}

/* Device d's fence centre (the bench script writes the same circles, radius 100 m). */
static double fence_lat(int d) { return -60 + (d % 100) * 1.0; }
static double fence_lon(int d) { return -170 + (d / 100) * 3.0; }

static void on_event(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure) {
    (void)nc; (void)sub; (void)closure;
    atomic_fetch_add(&events_seen, 1);
    const char *subject = natsMsg_GetSubject(msg);
    const char *p = strstr(subject, ".probe.probe");
    if (p && strstr(subject, "region.enter")) {
        int k = atoi(p + strlen(".probe.probe"));
        if (k >= 0 && k < atomic_load(&probes_sent) && probe_latency[k] == 0) {
            probe_latency[k] = now_s() - probe_sent_at[k];
            atomic_fetch_add(&probes_seen, 1);
        }
    }
    natsMsg_Destroy(msg);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* p50, p99 and max (ms) of the probes in [from, to) that were seen. */
static void percentiles(int from, int to, double *p50, double *p99, double *max) {
    double *v = malloc(sizeof(double) * (to > from ? to - from : 1));
    int n = 0;
    for (int k = from; k < to; k++) if (probe_latency[k] > 0) v[n++] = probe_latency[k] * 1000;
    qsort(v, n, sizeof(double), cmp);
    *p50 = n ? v[n / 2] : -1;
    *p99 = n ? v[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1] : -1;
    *max = n ? v[n - 1] : -1;
    free(v);
}

static int anchor(const char *url, long messages) {
    natsConnection *nc = NULL;
    jsCtx *js = NULL;
    jsOptions o;
    jsOptions_Init(&o);
    o.PublishAsync.MaxPending = 4096;
    if (natsConnection_ConnectTo(&nc, url) != NATS_OK || natsConnection_JetStream(&js, nc, &o) != NATS_OK) {
        fprintf(stderr, "cannot connect to %s\n", url);
        return 1;
    }
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "LOCUS_ANCHOR";
    const char *subjects[] = {"anchor.>"};
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    jsErrCode jerr = 0;
    js_AddStream(NULL, js, &cfg, NULL, &jerr);
    char body[120];
    memset(body, 'x', sizeof body);
    char subject[64];
    double t0 = now_s();
    for (long i = 0; i < messages; i++) {
        snprintf(subject, sizeof subject, "anchor.%ld", i % 64);
        if (js_PublishAsync(js, subject, body, sizeof body, NULL) != NATS_OK) { fprintf(stderr, "publish failed\n"); return 1; }
    }
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = 60000;
    if (js_PublishAsyncComplete(js, &po) != NATS_OK) { fprintf(stderr, "not every publish was acknowledged\n"); return 1; }
    double t = now_s() - t0;
    printf("{\"anchor_messages\":%ld,\"anchor_seconds\":%.2f,\"anchor_acknowledged_per_s\":%.0f}\n", messages, t, messages / t);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "anchor") == 0) return anchor(argv[2], atol(argv[3]));
    if (argc != 8 || strcmp(argv[1], "load") != 0) {
        fprintf(stderr, "usage: %s load URL DEVICES RATE SECONDS PARTITIONS KILL_AT | anchor URL MESSAGES\n", argv[0]);
        return 2;
    }
    const char *url = argv[2];
    int devices = atoi(argv[3]), partitions = atoi(argv[6]);
    double rate = atof(argv[4]), seconds = atof(argv[5]), kill_at = atof(argv[7]);
    natsConnection *pub = NULL, *obs = NULL;
    natsSubscription *sub = NULL;
    natsOptions *opts = NULL;
    natsOptions_Create(&opts);
    natsOptions_SetURL(opts, url);
    natsOptions_SetMaxPendingMsgs(opts, 10000000);
    if (natsConnection_Connect(&pub, opts) != NATS_OK || natsConnection_Connect(&obs, opts) != NATS_OK) {
        fprintf(stderr, "cannot connect to %s\n", url);
        return 1;
    }
    natsConnection_Subscribe(&sub, obs, "locus.events.>", on_event, NULL);
    natsSubscription_SetPendingLimits(sub, -1, -1);
    natsConnection_Flush(obs);
    char *subjects = malloc((size_t)devices * 48);
    for (int d = 0; d < devices; d++) {
        char name[24];
        snprintf(name, sizeof name, "d%d", d);
        snprintf(subjects + (size_t)d * 48, 48, "locus.fixes.%u.%s", fnv1a(name) % (uint32_t)partitions, name);
    }
    long sent = 0;
    double start = now_s(), next_probe = start;
    long total = (long)(devices * rate * seconds);
    long tst0 = 1700000000;
    int kill_probe = -1;
    char body[256];
    while (sent < total) {
        double t = now_s() - start;
        long due = (long)(t * devices * rate);
        if (due > total) due = total;
        for (; sent < due; sent++) {
            int d = (int)(sent % devices);
            long n = sent / devices;  /* this device's fix number */
            int step = (int)(n % 30);
            double north = (n / 30) % 2 == 0 ? -300 + step * 20 : 300 - step * 20;
            double lat = fence_lat(d) + north / 111320.0;
            int len = snprintf(body, sizeof body, "{\"_type\":\"location\",\"lat\":%.7f,\"lon\":%.7f,\"tst\":%ld,\"acc\":5}",
                               lat, fence_lon(d), tst0 + (long)(n / rate));
            natsConnection_Publish(pub, subjects + (size_t)d * 48, body, len);
        }
        if (now_s() >= next_probe && probes_sent < MAX_PROBES) {
            int k = atomic_load(&probes_sent);
            char name[24], subject[64];
            snprintf(name, sizeof name, "probe%d", k);
            snprintf(subject, sizeof subject, "locus.fixes.%u.%s", fnv1a(name) % (uint32_t)partitions, name);
            int len = snprintf(body, sizeof body, "{\"_type\":\"location\",\"lat\":10.0,\"lon\":20.0,\"tst\":%ld,\"acc\":5}", tst0);
            probe_sent_at[k] = now_s();
            natsConnection_Publish(pub, subject, body, len);
            atomic_store(&probes_sent, k + 1);
            next_probe += 0.1;
            if (kill_at > 0 && kill_probe < 0 && now_s() - start >= kill_at) kill_probe = k;
        }
        natsConnection_Flush(pub);
        usleep(2000);
    }
    double elapsed = now_s() - start;
    for (int i = 0; i < 200 && atomic_load(&probes_seen) < atomic_load(&probes_sent); i++) usleep(100000);
    int n = atomic_load(&probes_sent);
    double p50, p99, max, b50, b99, bmax, a50, a99, amax;
    percentiles(0, n, &p50, &p99, &max);
    int split = kill_probe < 0 ? n : kill_probe;
    percentiles(0, split, &b50, &b99, &bmax);
    percentiles(split, n, &a50, &a99, &amax);
    printf("{\"sent\":%ld,\"send_rate\":%.0f,\"events_seen\":%ld,\"probes_sent\":%d,\"probes_seen\":%d,"
           "\"latency_ms\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f},"
           "\"before_kill_ms\":{\"p50\":%.1f,\"p99\":%.1f},\"after_kill_ms\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f}}\n",
           sent, sent / elapsed, atomic_load(&events_seen), n, atomic_load(&probes_seen), p50, p99, max, b50, b99, a50, a99, amax);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(pub);
    natsConnection_Destroy(obs);
    natsOptions_Destroy(opts);
    free(subjects);
    return 0;
}
