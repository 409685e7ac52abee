/*
 * A Locus bus subscriber in C, using only libzmq.
 *
 *   subscriber [-e ENDPOINT] [-n COUNT] [-t TIMEOUT_MS] [PREFIX...]
 *
 * Prints one line per message, "topic<TAB>body". Each message must have exactly two frames:
 * the topic and the JSON envelope. Sequence gaps per producer are reported on stderr.
 *
 * Exit status: 0 after COUNT messages, after TIMEOUT_MS without a message, or on Ctrl-C;
 * 1 on a ZeroMQ error, or if any message was malformed (reported, skipped, and not counted);
 * 2 on bad usage.
 *
 * The default endpoint is $LOCUS_PUBLISH_ENDPOINT (set when Locus's exec plugin runs the
 * program), else the hub's ipc socket: ipc://$LOCUS_RUNTIME_DIR/publish.sock, else
 * ipc://$XDG_RUNTIME_DIR/locus/publish.sock, else ipc:///tmp/locus-<uid>/publish.sock.
 * See docs/protocol.md for the message format.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_PRODUCERS 256
#define MAX_ID 64 /* plugin ids are at most 64 bytes */

static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

struct producer {
    char id[MAX_ID + 1];
    unsigned long long last_seq;
};

static struct producer producers[MAX_PRODUCERS];
static int producer_count = 0;

/*
 * Finds `"key"` followed by optional white space and a colon in body[0, len), and returns
 * the offset of the value after further white space, or -1.
 *
 * This is a scan, not a JSON parser: it takes the first occurrence. It is reliable for the
 * envelope keys because producers write type, version, producer, seq, time before payload
 * (as Locus does), and none of those values can contain a quote. A real program should use a
 * JSON library.
 */
static long find_value(const char *body, size_t len, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen + 2 <= len; i++) {
        if (body[i] != '"' || memcmp(body + i + 1, key, klen) != 0 || body[i + 1 + klen] != '"')
            continue;
        size_t j = i + klen + 2;
        while (j < len && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r'))
            j++;
        if (j >= len || body[j] != ':')
            continue;
        j++;
        while (j < len && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r'))
            j++;
        return j < len ? (long)j : -1;
    }
    return -1;
}

/* Reads "producer":"<id>" and "seq":<n> from the envelope. Returns 0 on success. */
static int read_producer_seq(const char *body, size_t len, char *id, unsigned long long *seq)
{
    long p = find_value(body, len, "producer");
    long s = find_value(body, len, "seq");
    if (p < 0 || s < 0 || body[p] != '"')
        return -1;
    size_t n = 0;
    for (size_t i = (size_t)p + 1; i < len && body[i] != '"'; i++) {
        if (n == MAX_ID || body[i] == '\\')
            return -1; /* not a valid plugin id */
        id[n++] = body[i];
    }
    id[n] = '\0';
    if (n == 0)
        return -1;
    unsigned long long v = 0;
    size_t i = (size_t)s, digits = 0;
    for (; i < len && body[i] >= '0' && body[i] <= '9'; i++, digits++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(body[i] - '0');
    }
    if (digits == 0)
        return -1;
    *seq = v;
    return 0;
}

/*
 * Sequence numbers count per producer across all its topics, from 1, without gaps. A jump
 * means messages were not received: lost, or (when subscribed to some prefixes only)
 * published on topics outside the subscription. A return to 1 means the producer restarted.
 */
static void check_sequence(const char *id, unsigned long long seq, int filtered)
{
    struct producer *p = NULL;
    for (int i = 0; i < producer_count; i++) {
        if (strcmp(producers[i].id, id) == 0) {
            p = &producers[i];
            break;
        }
    }
    if (p == NULL) {
        if (producer_count == MAX_PRODUCERS) {
            static int warned = 0;
            if (!warned)
                fprintf(stderr, "more than %d producers: not tracking sequence numbers of new ones\n",
                        MAX_PRODUCERS);
            warned = 1;
            return;
        }
        p = &producers[producer_count++];
        snprintf(p->id, sizeof p->id, "%s", id);
        p->last_seq = seq;
        return;
    }
    if (seq == 1 && p->last_seq != 0)
        fprintf(stderr, "%s restarted (seq %llu -> 1)\n", id, p->last_seq);
    else if (seq > p->last_seq + 1)
        fprintf(stderr, "gap: %s seq %llu -> %llu, %llu message(s) %s\n", id, p->last_seq, seq,
                seq - p->last_seq - 1, filtered ? "lost or on topics not subscribed to" : "lost");
    else if (seq <= p->last_seq)
        fprintf(stderr, "%s seq went back from %llu to %llu (duplicate producer id?)\n", id,
                p->last_seq, seq);
    p->last_seq = seq;
}

/* Length of `dir` without trailing slashes (but keeping a lone "/"), as Locus trims it. */
static int trimmed_length(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return (int)n;
}

/*
 * The hub's publish endpoint: $LOCUS_PUBLISH_ENDPOINT when Locus's exec plugin started us,
 * else the ipc socket in the runtime directory, found by the same rule as the Locus runtime.
 */
static void default_endpoint(char *buf, size_t size)
{
    const char *given = getenv("LOCUS_PUBLISH_ENDPOINT");
    const char *dir = getenv("LOCUS_RUNTIME_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (given != NULL && given[0] != '\0')
        snprintf(buf, size, "%s", given);
    else if (dir != NULL && dir[0] != '\0')
        snprintf(buf, size, "ipc://%.*s/publish.sock", trimmed_length(dir), dir);
    else if (xdg != NULL && xdg[0] != '\0')
        snprintf(buf, size, "ipc://%.*s/locus/publish.sock", trimmed_length(xdg), xdg);
    else
        snprintf(buf, size, "ipc:///tmp/locus-%lu/publish.sock", (unsigned long)getuid());
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-e ENDPOINT] [-n COUNT] [-t TIMEOUT_MS] [PREFIX...]\n", argv0);
}

/* Parses a non-negative decimal number; returns -1 if `s` is not one. */
static long long parse_count(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0)
        return -1;
    return v;
}

int main(int argc, char **argv)
{
    char endpoint[4096];
    long long count = -1, timeout_ms = -1;
    int opt;

    default_endpoint(endpoint, sizeof endpoint);
    while ((opt = getopt(argc, argv, "e:n:t:h")) != -1) {
        switch (opt) {
        case 'e':
            snprintf(endpoint, sizeof endpoint, "%s", optarg);
            break;
        case 'n':
            if ((count = parse_count(optarg)) < 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        case 't':
            if ((timeout_ms = parse_count(optarg)) < 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        default:
            usage(argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }

    /* No SA_RESTART: Ctrl-C must interrupt zmq_poll so the loop can see the flag. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    void *ctx = zmq_ctx_new();
    void *sub = zmq_socket(ctx, ZMQ_SUB);
    int linger = 0;
    int status = 0;
    zmq_setsockopt(sub, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(sub, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        zmq_close(sub);
        zmq_ctx_term(ctx);
        return 1;
    }
    int filtered = optind < argc;
    if (!filtered)
        zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0); /* the empty prefix matches every topic */
    for (int i = optind; i < argc; i++)
        zmq_setsockopt(sub, ZMQ_SUBSCRIBE, argv[i], strlen(argv[i]));

    long long received = 0, last = now_ms();
    zmq_msg_t frames[2];
    zmq_msg_init(&frames[0]);
    zmq_msg_init(&frames[1]);
    while (!interrupted && (count < 0 || received < count)) {
        /* Poll in short slices: the timeout counts from the last message, not the last poll. */
        zmq_pollitem_t item = { .socket = sub, .events = ZMQ_POLLIN };
        int rc = zmq_poll(&item, 1, 200);
        if (rc < 0) {
            if (zmq_errno() == EINTR)
                continue;
            fprintf(stderr, "zmq_poll: %s\n", zmq_strerror(zmq_errno()));
            status = 1;
            break;
        }
        if (rc == 0) {
            if (timeout_ms >= 0 && now_ms() - last >= timeout_ms)
                break;
            continue;
        }

        /* Read every frame of the message, so a malformed one is consumed whole. */
        int nframes = 0, more = 1;
        while (more) {
            zmq_msg_t part;
            zmq_msg_init(&part);
            if (zmq_msg_recv(&part, sub, 0) < 0) {
                zmq_msg_close(&part);
                if (zmq_errno() == EINTR && interrupted)
                    goto loop_end;
                fprintf(stderr, "zmq_msg_recv: %s\n", zmq_strerror(zmq_errno()));
                status = 1;
                goto loop_end;
            }
            more = zmq_msg_more(&part);
            if (nframes < 2)
                zmq_msg_move(&frames[nframes], &part);
            zmq_msg_close(&part);
            nframes++;
        }
        last = now_ms();
        if (nframes != 2) {
            fprintf(stderr, "malformed message: %d frames, expected 2 (topic, body)\n", nframes);
            status = 1;
            continue;
        }
        received++;

        const char *topic = zmq_msg_data(&frames[0]);
        const char *body = zmq_msg_data(&frames[1]);
        size_t topic_len = zmq_msg_size(&frames[0]), body_len = zmq_msg_size(&frames[1]);
        fwrite(topic, 1, topic_len, stdout);
        putchar('\t');
        fwrite(body, 1, body_len, stdout);
        putchar('\n');
        fflush(stdout);

        char id[MAX_ID + 1];
        unsigned long long seq;
        if (read_producer_seq(body, body_len, id, &seq) == 0)
            check_sequence(id, seq, filtered);
        else
            fprintf(stderr, "%.*s: no producer/seq found in the body\n", (int)topic_len, topic);
    }
loop_end:
    zmq_msg_close(&frames[0]);
    zmq_msg_close(&frames[1]);
    zmq_close(sub);
    zmq_ctx_term(ctx);
    return status;
}
