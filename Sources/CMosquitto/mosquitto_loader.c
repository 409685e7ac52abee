// Definitions of the libmosquitto functions Locus calls, forwarding to libmosquitto.so.1 opened
// at first use (see include/CMosquitto.h for why).
//
// To call another libmosquitto function from Swift, add it to MOSQUITTO_FUNCTIONS (or
// MOSQUITTO_VOID_FUNCTIONS) with its prototype from <mosquitto.h>: until then the link fails with
// an undefined symbol, since nothing links libmosquitto itself.
#include "CMosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// X(return type, name, parameters, arguments)
#define MOSQUITTO_FUNCTIONS(X) \
    X(int, mosquitto_lib_init, (void), ()) \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj)) \
    X(int, mosquitto_int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value)) \
    X(int, mosquitto_username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), \
      (mosq, username, password)) \
    X(int, mosquitto_tls_set, (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, \
      const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)), \
      (mosq, cafile, capath, certfile, keyfile, pw_callback)) \
    X(int, mosquitto_tls_insecure_set, (struct mosquitto *mosq, bool value), (mosq, value)) \
    X(int, mosquitto_will_set, (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, \
      bool retain), (mosq, topic, payloadlen, payload, qos, retain)) \
    X(int, mosquitto_max_inflight_messages_set, (struct mosquitto *mosq, unsigned int max_inflight_messages), \
      (mosq, max_inflight_messages)) \
    X(int, mosquitto_connect_async, (struct mosquitto *mosq, const char *host, int port, int keepalive), \
      (mosq, host, port, keepalive)) \
    X(int, mosquitto_connect_bind_v5, (struct mosquitto *mosq, const char *host, int port, int keepalive, \
      const char *bind_address, const mosquitto_property *properties), \
      (mosq, host, port, keepalive, bind_address, properties)) \
    X(int, mosquitto_loop, (struct mosquitto *mosq, int timeout, int max_packets), (mosq, timeout, max_packets)) \
    X(int, mosquitto_socket, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_loop_read, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, mosquitto_loop_write, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, mosquitto_loop_misc, (struct mosquitto *mosq), (mosq)) \
    X(bool, mosquitto_want_write, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_publish, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, \
      int qos, bool retain), (mosq, mid, topic, payloadlen, payload, qos, retain)) \
    X(int, mosquitto_publish_v5, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, \
      const void *payload, int qos, bool retain, const mosquitto_property *properties), \
      (mosq, mid, topic, payloadlen, payload, qos, retain, properties)) \
    X(int, mosquitto_subscribe, (struct mosquitto *mosq, int *mid, const char *sub, int qos), (mosq, mid, sub, qos)) \
    X(int, mosquitto_disconnect, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_property_add_int32, (mosquitto_property **proplist, int identifier, uint32_t value), \
      (proplist, identifier, value)) \
    X(int, mosquitto_property_add_string_pair, (mosquitto_property **proplist, int identifier, const char *name, \
      const char *value), (proplist, identifier, name, value)) \
    X(const char *, mosquitto_strerror, (int mosq_errno), (mosq_errno)) \
    X(const char *, mosquitto_connack_string, (int connack_code), (connack_code)) \
    X(const char *, mosquitto_reason_string, (int reason_code), (reason_code))

// X(name, parameters, arguments)
#define MOSQUITTO_VOID_FUNCTIONS(X) \
    X(mosquitto_destroy, (struct mosquitto *mosq), (mosq)) \
    X(mosquitto_property_free_all, (mosquitto_property **properties), (properties)) \
    X(mosquitto_connect_callback_set, (struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)), \
      (mosq, on_connect)) \
    X(mosquitto_disconnect_callback_set, (struct mosquitto *mosq, \
      void (*on_disconnect)(struct mosquitto *, void *, int)), (mosq, on_disconnect)) \
    X(mosquitto_publish_v5_callback_set, (struct mosquitto *mosq, \
      void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *props)), (mosq, on_publish)) \
    X(mosquitto_message_callback_set, (struct mosquitto *mosq, \
      void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)), (mosq, on_message))

#define POINTER(ret, name, params, args) ret (*name) params;
#define VOID_POINTER(name, params, args) void (*name) params;
static struct {
    MOSQUITTO_FUNCTIONS(POINTER)
    MOSQUITTO_VOID_FUNCTIONS(VOID_POINTER)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

static void load(void) {
    // RTLD_LOCAL: libmosquitto's symbols stay out of the global namespace, where they would
    // meet the forwarding definitions below.
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(*(void **)&api.name = dlsym(library, #name))) { \
        snprintf(failure, sizeof failure, "libmosquitto.so.1 has no %s", #name); \
        return; \
    }
#define RESOLVE_FUNCTION(ret, name, params, args) RESOLVE(name)
#define RESOLVE_VOID_FUNCTION(name, params, args) RESOLVE(name)
    MOSQUITTO_FUNCTIONS(RESOLVE_FUNCTION)
    MOSQUITTO_VOID_FUNCTIONS(RESOLVE_VOID_FUNCTION)
    loaded = 1;
}

int locus_mosquitto_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (error && size > 0) snprintf(error, size, "%s", failure);
    return -1;
}

#define FORWARD(ret, name, params, args) ret name params { return api.name args; }
#define FORWARD_VOID(name, params, args) void name params { api.name args; }
MOSQUITTO_FUNCTIONS(FORWARD)
MOSQUITTO_VOID_FUNCTIONS(FORWARD_VOID)
