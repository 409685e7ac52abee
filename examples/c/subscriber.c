/*
 * A Locus bus subscriber in C, using only libzmq.
 *
 *   subscriber [-e ENDPOINT] [-k SERVER_KEY -K CLIENT_KEY_SECRET] [-n COUNT] [-t TIMEOUT_MS] [PREFIX...]
 *
 * Prints one line per message, "topic<TAB>body". Each message must have exactly two frames:
 * the topic and the JSON envelope. Sequence gaps are reported on stderr: per producer, or,
 * when subscribed to some prefixes only, per producer and topic (docs/protocol.md 4.2).
 *
 * Exit status: 0 after COUNT messages, after TIMEOUT_MS without a message, or on Ctrl-C;
 * 1 on a ZeroMQ error, or if any message was malformed (reported, skipped, and not counted);
 * 2 on bad usage or a CURVE key that cannot be used.
 *
 * The default endpoint is $LOCUS_PUBLISH_ENDPOINT (set when Locus's exec plugin runs the
 * program), else the hub's ipc socket: ipc://$LOCUS_RUNTIME_DIR/publish.sock, else
 * ipc://$XDG_RUNTIME_DIR/locus/publish.sock, else ipc:///tmp/locus-<uid>/publish.sock.
 * See docs/protocol.md for the message format.
 *
 * CURVE (a tcp endpoint with `curve:` in the hub's config): -k is the server's public key, a
 * 40-character Z85 key or its NAME.key certificate; -K this client's NAME.key_secret from
 * `locus keygen`. They default to $LOCUS_SERVER_KEY and $LOCUS_CLIENT_KEY and are used for tcp
 * endpoints only: Locus's ipc sockets never speak CURVE.
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
#define MAX_TOPICS 1024 /* (producer, topic) pairs followed by topic_seq */
#define MAX_ID 64 /* plugin ids are at most 64 bytes */
#define MAX_TOPIC 255 /* topics are at most 255 bytes */
#define KEY_LEN 40 /* a CURVE key in Z85 */
#define MAX_CERTIFICATE 65536 /* real certificates are about 400 bytes */

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

struct topic_position {
    char id[MAX_ID + 1];
    char topic[MAX_TOPIC + 1];
    unsigned long long last_topic_seq;
};

static struct topic_position topic_positions[MAX_TOPICS];
static int topic_count = 0;

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

/* Reads the decimal number at body[at, len) into *value. Returns 0, or -1 if there is none. */
static int read_number(const char *body, size_t len, size_t at, unsigned long long *value)
{
    unsigned long long v = 0;
    size_t i = at, digits = 0;
    for (; i < len && body[i] >= '0' && body[i] <= '9'; i++, digits++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(body[i] - '0');
    }
    if (digits == 0)
        return -1;
    *value = v;
    return 0;
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
    return read_number(body, len, (size_t)s, seq);
}

/*
 * Reads the optional "topic_seq":<n> (protocol version 2; Locus writes it right after seq).
 * Returns 0, or -1 when the envelope has none. Only a key before "payload" counts: the scan
 * must not take a payload field of that name from a producer that does not write it.
 */
static int read_topic_seq(const char *body, size_t len, unsigned long long *topic_seq)
{
    long t = find_value(body, len, "topic_seq");
    long payload = find_value(body, len, "payload");
    if (t < 0 || (payload >= 0 && t > payload))
        return -1;
    return read_number(body, len, (size_t)t, topic_seq);
}

/*
 * Sequence numbers count per producer across all its topics, from 1, without gaps. A jump
 * means messages were not received: lost, or (when subscribed to some prefixes only)
 * published on topics outside the subscription. A return to 1 means the producer restarted.
 * With `quiet` the position is only noted: the message was checked by its topic_seq.
 */
static void check_sequence(const char *id, unsigned long long seq, int filtered, int quiet)
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
    if (quiet) {
        /* compared by topic_seq instead */
    } else if (seq == 1 && p->last_seq != 0)
        fprintf(stderr, "%s restarted (seq %llu -> 1)\n", id, p->last_seq);
    else if (seq > p->last_seq + 1)
        fprintf(stderr, "gap: %s seq %llu -> %llu, %llu message(s) %s\n", id, p->last_seq, seq,
                seq - p->last_seq - 1, filtered ? "lost or on topics not subscribed to" : "lost");
    else if (seq <= p->last_seq)
        fprintf(stderr, "%s seq went back from %llu to %llu (duplicate producer id?)\n", id,
                p->last_seq, seq);
    p->last_seq = seq;
}

/*
 * topic_seq counts per producer and topic, from 1, without gaps (docs/protocol.md 4.2). When
 * subscribed to some prefixes only, a prefix subscription gets every message of the topics it
 * matches, so here a jump means messages were lost, never that they went elsewhere. A return
 * to 1 means the producer restarted (or, past 131,072 topics, started all its topics again).
 */
static void check_topic_sequence(const char *id, const char *topic, size_t topic_len, unsigned long long topic_seq)
{
    if (topic_len > MAX_TOPIC || memchr(topic, '\0', topic_len) != NULL)
        return; /* not a Locus topic: the hub forwards none */
    struct topic_position *t = NULL;
    for (int i = 0; i < topic_count; i++) {
        if (strcmp(topic_positions[i].id, id) == 0 && strlen(topic_positions[i].topic) == topic_len &&
            memcmp(topic_positions[i].topic, topic, topic_len) == 0) {
            t = &topic_positions[i];
            break;
        }
    }
    if (t == NULL) {
        if (topic_count == MAX_TOPICS) {
            static int warned = 0;
            if (!warned)
                fprintf(stderr, "more than %d producer topics: not tracking topic_seq of new ones\n", MAX_TOPICS);
            warned = 1;
            return;
        }
        t = &topic_positions[topic_count++];
        snprintf(t->id, sizeof t->id, "%s", id);
        memcpy(t->topic, topic, topic_len);
        t->topic[topic_len] = '\0';
        t->last_topic_seq = topic_seq;
        return;
    }
    if (topic_seq == 1 && t->last_topic_seq != 0)
        fprintf(stderr, "%s %s restarted (topic_seq %llu -> 1)\n", id, t->topic, t->last_topic_seq);
    else if (topic_seq > t->last_topic_seq + 1)
        fprintf(stderr, "gap: %s %s topic_seq %llu -> %llu, %llu message(s) lost\n", id, t->topic,
                t->last_topic_seq, topic_seq, topic_seq - t->last_topic_seq - 1);
    else if (topic_seq <= t->last_topic_seq)
        fprintf(stderr, "%s %s topic_seq went back from %llu to %llu (duplicate producer id?)\n", id, t->topic,
                t->last_topic_seq, topic_seq);
    t->last_topic_seq = topic_seq;
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

/* The value of an environment variable, or NULL when it is unset or empty. */
static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

struct curve_keys {
    char server[KEY_LEN + 1];
    char public_key[KEY_LEN + 1];
    char secret_key[KEY_LEN + 1]; /* empty when the certificate has none */
};

/* True if `s` is a CURVE key: 40 characters that decode as Z85. */
static int is_z85_key(const char *s)
{
    uint8_t raw[32];
    return strlen(s) == KEY_LEN && zmq_z85_decode(raw, s) != NULL;
}

static int is_blank_or_quote(char c)
{
    return c == ' ' || c == '\t' || c == '"' || c == '\'';
}

/*
 * Copies the value of a `name = "value"` line into `out` (KEY_LEN + 1 bytes): what follows
 * the first '=', without surrounding blanks and quotes, as pyzmq strips it. Returns 0, or -1
 * if that is not a Z85 key.
 */
static int key_value(const char *line, size_t len, char *out)
{
    const char *eq = memchr(line, '=', len);
    if (eq == NULL)
        return -1;
    const char *start = eq + 1, *end = line + len;
    while (start < end && is_blank_or_quote(*start))
        start++;
    while (end > start && is_blank_or_quote(end[-1]))
        end--;
    if (end - start != KEY_LEN || memchr(start, '\0', KEY_LEN) != NULL)
        return -1;
    memcpy(out, start, KEY_LEN);
    out[KEY_LEN] = '\0';
    return is_z85_key(out) ? 0 : -1;
}

/*
 * Reads a CURVE certificate (the files locus keygen, pyzmq and czmq write) the way pyzmq's
 * zmq.auth.load_certificate does: lines starting with '#' are skipped; the first line that
 * starts, after blanks, with "public-key" and the first with "secret-key" give the keys.
 * `secret_key` is left empty when there is no secret-key line. Returns NULL, or why the file
 * cannot be used.
 */
static const char *read_certificate(const char *path, char *public_key, char *secret_key)
{
    static char text[MAX_CERTIFICATE + 1];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return strerror(errno);
    size_t size = fread(text, 1, sizeof text, f);
    int failed = ferror(f);
    int error = errno;
    fclose(f);
    if (failed)
        return strerror(error);
    if (size > MAX_CERTIFICATE)
        return "is larger than 64 KiB: not a certificate";
    public_key[0] = secret_key[0] = '\0';
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t end = nl != NULL ? (size_t)(nl - text) : size, start = i;
        i = end + 1;
        while (start < end && (text[start] == ' ' || text[start] == '\t' || text[start] == '\r'))
            start++;
        while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'))
            end--;
        const char *line = text + start;
        size_t len = end - start;
        if (len == 0 || line[0] == '#')
            continue;
        if (public_key[0] == '\0' && len >= 10 && memcmp(line, "public-key", 10) == 0) {
            if (key_value(line, len, public_key) != 0)
                return "has a public-key that is not 40 characters of Z85 after '='";
        } else if (secret_key[0] == '\0' && len >= 10 && memcmp(line, "secret-key", 10) == 0) {
            if (key_value(line, len, secret_key) != 0)
                return "has a secret-key that is not 40 characters of Z85 after '='";
        }
    }
    return public_key[0] != '\0' ? NULL : "has no public-key line: not a CURVE certificate";
}

/*
 * Fills `keys` from the server key (a Z85 key or a certificate) and the client's secret
 * certificate. Returns 0, or says why on stderr and returns -1.
 */
static int load_curve_keys(const char *server, const char *client, struct curve_keys *keys)
{
    char ignored[KEY_LEN + 1];
    const char *why;
    if (is_z85_key(server)) {
        snprintf(keys->server, sizeof keys->server, "%s", server);
    } else if ((why = read_certificate(server, keys->server, ignored)) != NULL) {
        fprintf(stderr, "server key %s: %s; give the server's NAME.key or its 40-character Z85 key\n", server, why);
        return -1;
    }
    if ((why = read_certificate(client, keys->public_key, keys->secret_key)) != NULL) {
        fprintf(stderr, "client key %s: %s; give this client's NAME.key_secret from locus keygen\n", client, why);
        return -1;
    }
    if (keys->secret_key[0] == '\0') {
        fprintf(stderr, "client key %s has no secret-key: give the NAME.key_secret file, not NAME.key\n", client);
        return -1;
    }
    char derived[KEY_LEN + 1];
    if (zmq_curve_public(derived, keys->secret_key) != 0 || strcmp(derived, keys->public_key) != 0) {
        fprintf(stderr, "client key %s has a secret-key that does not belong to its public-key\n", client);
        return -1;
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-e ENDPOINT] [-k SERVER_KEY -K CLIENT_KEY_SECRET] [-n COUNT] [-t TIMEOUT_MS] "
                    "[PREFIX...]\n", argv0);
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
    const char *server_key = env_value("LOCUS_SERVER_KEY"), *client_key = env_value("LOCUS_CLIENT_KEY");
    int opt;

    default_endpoint(endpoint, sizeof endpoint);
    while ((opt = getopt(argc, argv, "e:k:K:n:t:h")) != -1) {
        switch (opt) {
        case 'e':
            snprintf(endpoint, sizeof endpoint, "%s", optarg);
            break;
        case 'k':
            server_key = optarg;
            break;
        case 'K':
            client_key = optarg;
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

    /* Keys are for tcp only: those in the environment (an exec plugin's program inherits
     * Locus's) must not be applied to the ipc socket it is given. */
    struct curve_keys keys = { .server = "" };
    int curve = strncmp(endpoint, "tcp://", 6) == 0 && (server_key != NULL || client_key != NULL);
    if (curve) {
        if (server_key == NULL || client_key == NULL) {
            fprintf(stderr, "CURVE needs both keys: -k SERVER_KEY (the server's NAME.key) and -K CLIENT_KEY_SECRET "
                            "(this client's NAME.key_secret), or $LOCUS_SERVER_KEY and $LOCUS_CLIENT_KEY\n");
            return 2;
        }
        if (!zmq_has("curve")) {
            fprintf(stderr, "this libzmq is built without CURVE; install one built with libsodium\n");
            return 1;
        }
        if (load_curve_keys(server_key, client_key, &keys) != 0)
            return 2;
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
    /* Before connecting: the handshake uses them. A Z85 key is passed with its NUL (41 bytes). */
    if (curve && (zmq_setsockopt(sub, ZMQ_CURVE_SERVERKEY, keys.server, KEY_LEN + 1) != 0 ||
                  zmq_setsockopt(sub, ZMQ_CURVE_PUBLICKEY, keys.public_key, KEY_LEN + 1) != 0 ||
                  zmq_setsockopt(sub, ZMQ_CURVE_SECRETKEY, keys.secret_key, KEY_LEN + 1) != 0)) {
        fprintf(stderr, "cannot set the CURVE keys: %s\n", zmq_strerror(zmq_errno()));
        zmq_close(sub);
        zmq_ctx_term(ctx);
        return 1;
    }
    if (zmq_connect(sub, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        zmq_close(sub);
        zmq_ctx_term(ctx);
        return 1;
    }
    /* Some prefixes only: none given, or the empty one among them, is everything. */
    int filtered = optind < argc;
    if (!filtered)
        zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0); /* the empty prefix matches every topic */
    for (int i = optind; i < argc; i++) {
        zmq_setsockopt(sub, ZMQ_SUBSCRIBE, argv[i], strlen(argv[i]));
        if (argv[i][0] == '\0')
            filtered = 0;
    }

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

        /* Subscribed to everything: seq per producer. To some prefixes only: topic_seq per
         * producer and topic where the body has one (seq would jump over the topics not
         * subscribed to), else seq. The producer's seq is noted either way. */
        char id[MAX_ID + 1];
        unsigned long long seq, topic_seq = 0;
        if (read_producer_seq(body, body_len, id, &seq) == 0) {
            int per_topic = filtered && read_topic_seq(body, body_len, &topic_seq) == 0;
            check_sequence(id, seq, filtered, per_topic);
            if (per_topic)
                check_topic_sequence(id, topic, topic_len, topic_seq);
        } else
            fprintf(stderr, "%.*s: no producer/seq found in the body\n", (int)topic_len, topic);
    }
loop_end:
    zmq_msg_close(&frames[0]);
    zmq_msg_close(&frames[1]);
    zmq_close(sub);
    zmq_ctx_term(ctx);
    return status;
}
