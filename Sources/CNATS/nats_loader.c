// Definitions of the libnats functions Locus calls, forwarding to libnats.so.3.4 opened at first
// use (see include/CNATS.h for why).
//
// To call another libnats function from Swift, add it to NATS_FUNCTIONS (or NATS_VOID_FUNCTIONS)
// with its prototype from <nats/nats.h>: until then the link fails with an undefined symbol, since
// nothing links libnats itself.
#include "CNATS.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// X(return type, name, parameters, arguments)
#define NATS_FUNCTIONS(X) \
    X(natsStatus, natsOptions_Create, (natsOptions **newOpts), (newOpts)) \
    X(natsStatus, natsOptions_SetURL, (natsOptions *opts, const char *url), (opts, url)) \
    X(natsStatus, natsOptions_SetServers, (natsOptions *opts, const char **servers, int serversCount), (opts, servers, serversCount)) \
    X(natsStatus, natsOptions_SetName, (natsOptions *opts, const char *name), (opts, name)) \
    X(natsStatus, natsOptions_SetTimeout, (natsOptions *opts, int64_t timeout), (opts, timeout)) \
    X(natsStatus, natsOptions_SetMaxReconnect, (natsOptions *opts, int maxReconnect), (opts, maxReconnect)) \
    X(natsStatus, natsOptions_SetReconnectWait, (natsOptions *opts, int64_t reconnectWait), (opts, reconnectWait)) \
    X(natsStatus, natsOptions_SetUserInfo, (natsOptions *opts, const char *user, const char *password), (opts, user, password)) \
    X(natsStatus, natsOptions_SetToken, (natsOptions *opts, const char *token), (opts, token)) \
    X(natsStatus, natsOptions_SetPingInterval, (natsOptions *opts, int64_t interval), (opts, interval)) \
    X(natsStatus, natsOptions_SetMaxPingsOut, (natsOptions *opts, int maxPingsOut), (opts, maxPingsOut)) \
    X(natsStatus, natsConnection_Connect, (natsConnection **nc, natsOptions *options), (nc, options)) \
    X(natsConnStatus, natsConnection_Status, (natsConnection *nc), (nc)) \
    X(natsStatus, natsConnection_FlushTimeout, (natsConnection *nc, int64_t timeout), (nc, timeout)) \
    X(natsStatus, natsConnection_JetStream, (jsCtx **js, natsConnection *nc, jsOptions *opts), (js, nc, opts)) \
    X(natsStatus, jsOptions_Init, (jsOptions *opts), (opts)) \
    X(natsStatus, jsStreamConfig_Init, (jsStreamConfig *cfg), (cfg)) \
    X(natsStatus, js_AddStream, (jsStreamInfo **si, jsCtx *js, jsStreamConfig *cfg, jsOptions *opts, jsErrCode *errCode), (si, js, cfg, opts, errCode)) \
    X(natsStatus, js_GetStreamInfo, (jsStreamInfo **si, jsCtx *js, const char *stream, jsOptions *opts, jsErrCode *errCode), (si, js, stream, opts, errCode)) \
    X(natsStatus, jsPubOptions_Init, (jsPubOptions *opts), (opts)) \
    X(natsStatus, js_Publish, (jsPubAck **pubAck, jsCtx *js, const char *subj, const void *data, int dataLen, jsPubOptions *opts, jsErrCode *errCode), (pubAck, js, subj, data, dataLen, opts, errCode)) \
    X(natsStatus, js_PublishMsg, (jsPubAck **pubAck, jsCtx *js, natsMsg *msg, jsPubOptions *opts, jsErrCode *errCode), (pubAck, js, msg, opts, errCode)) \
    X(natsStatus, natsMsg_Create, (natsMsg **newMsg, const char *subj, const char *reply, const char *data, int dataLen), (newMsg, subj, reply, data, dataLen)) \
    X(natsStatus, natsMsgHeader_Set, (natsMsg *msg, const char *key, const char *value), (msg, key, value)) \
    X(const char*, natsMsg_GetSubject, (const natsMsg *msg), (msg)) \
    X(const char*, natsMsg_GetData, (const natsMsg *msg), (msg)) \
    X(int, natsMsg_GetDataLength, (const natsMsg *msg), (msg)) \
    X(natsStatus, jsSubOptions_Init, (jsSubOptions *opts), (opts)) \
    X(natsStatus, js_PullSubscribe, (natsSubscription **sub, jsCtx *js, const char *subject, const char *durable, jsOptions *opts, jsSubOptions *subOpts, jsErrCode *errCode), (sub, js, subject, durable, opts, subOpts, errCode)) \
    X(natsStatus, natsSubscription_Fetch, (natsMsgList *list, natsSubscription *sub, int batch, int64_t timeout, jsErrCode *errCode), (list, sub, batch, timeout, errCode)) \
    X(natsStatus, jsFetchRequest_Init, (jsFetchRequest *request), (request)) \
    X(natsStatus, natsSubscription_FetchRequest, (natsMsgList *list, natsSubscription *sub, jsFetchRequest *request), (list, sub, request)) \
    X(natsStatus, natsSubscription_GetConsumerInfo, (jsConsumerInfo **ci, natsSubscription *sub, jsOptions *opts, jsErrCode *errCode), (ci, sub, opts, errCode)) \
    X(natsStatus, natsMsg_GetMetaData, (jsMsgMetaData **new_meta, natsMsg *msg), (new_meta, msg)) \
    X(natsStatus, natsMsg_Ack, (natsMsg *msg, jsOptions *opts), (msg, opts)) \
    X(natsStatus, natsSubscription_Unsubscribe, (natsSubscription *sub), (sub)) \
    X(natsStatus, kvConfig_Init, (kvConfig *cfg), (cfg)) \
    X(natsStatus, js_CreateKeyValue, (kvStore **new_kv, jsCtx *js, kvConfig *cfg), (new_kv, js, cfg)) \
    X(natsStatus, js_KeyValue, (kvStore **new_kv, jsCtx *js, const char *bucket), (new_kv, js, bucket)) \
    X(natsStatus, kvStore_Get, (kvEntry **new_entry, kvStore *kv, const char *key), (new_entry, kv, key)) \
    X(const void*, kvEntry_Value, (kvEntry *e), (e)) \
    X(int, kvEntry_ValueLen, (kvEntry *e), (e)) \
    X(uint64_t, kvEntry_Revision, (kvEntry *e), (e)) \
    X(const char*, kvEntry_Key, (kvEntry *e), (e)) \
    X(natsStatus, kvStore_Create, (uint64_t *rev, kvStore *kv, const char *key, const void *data, int len), (rev, kv, key, data, len)) \
    X(natsStatus, kvStore_Update, (uint64_t *rev, kvStore *kv, const char *key, const void *data, int len, uint64_t last), (rev, kv, key, data, len, last)) \
    X(natsStatus, kvStore_Keys, (kvKeysList *list, kvStore *kv, kvWatchOptions *opts), (list, kv, opts)) \
    X(natsStatus, kvStore_Put, (uint64_t *rev, kvStore *kv, const char *key, const void *data, int len), (rev, kv, key, data, len)) \
    X(natsStatus, js_GetLastMsg, (natsMsg **msg, jsCtx *js, const char *stream, const char *subject, jsOptions *opts, jsErrCode *errCode), (msg, js, stream, subject, opts, errCode)) \
    X(uint64_t, natsMsg_GetSequence, (natsMsg *msg), (msg)) \
    X(natsStatus, natsMsgHeader_Get, (natsMsg *msg, const char *key, const char **value), (msg, key, value)) \
    X(const char*, natsStatus_GetText, (natsStatus s), (s)) \
    X(const char*, nats_GetLastError, (natsStatus *status), (status)) \
    X(natsStatus, js_DeleteConsumer, (jsCtx *js, const char *stream, const char *consumer, jsOptions *opts, jsErrCode *errCode), (js, stream, consumer, opts, errCode)) \
    X(natsStatus, natsConnection_SubscribeSync, (natsSubscription **sub, natsConnection *nc, const char *subject), (sub, nc, subject)) \
    X(natsStatus, natsSubscription_NextMsg, (natsMsg **nextMsg, natsSubscription *sub, int64_t timeout), (nextMsg, sub, timeout)) \
    X(natsStatus, natsConnection_PublishMsg, (natsConnection *nc, natsMsg *msg), (nc, msg))

// X(name, parameters, arguments)
#define NATS_VOID_FUNCTIONS(X) \
    X(natsOptions_Destroy, (natsOptions *opts), (opts)) \
    X(natsConnection_Close, (natsConnection *nc), (nc)) \
    X(natsConnection_Destroy, (natsConnection *nc), (nc)) \
    X(jsCtx_Destroy, (jsCtx *js), (js)) \
    X(jsStreamInfo_Destroy, (jsStreamInfo *si), (si)) \
    X(jsPubAck_Destroy, (jsPubAck *pubAck), (pubAck)) \
    X(natsMsg_Destroy, (natsMsg *msg), (msg)) \
    X(natsMsgList_Destroy, (natsMsgList *list), (list)) \
    X(jsConsumerInfo_Destroy, (jsConsumerInfo *ci), (ci)) \
    X(jsMsgMetaData_Destroy, (jsMsgMetaData *meta), (meta)) \
    X(natsSubscription_Destroy, (natsSubscription *sub), (sub)) \
    X(kvStore_Destroy, (kvStore *kv), (kv)) \
    X(kvEntry_Destroy, (kvEntry *e), (e)) \
    X(kvKeysList_Destroy, (kvKeysList *list), (list))

#define POINTER(ret, name, params, args) ret (*name) params;
#define VOID_POINTER(name, params, args) void (*name) params;
static struct {
    NATS_FUNCTIONS(POINTER)
    NATS_VOID_FUNCTIONS(VOID_POINTER)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static int loaded;

static void load(void) {
    // RTLD_LOCAL: libnats's symbols stay out of the global namespace, where they would meet the
    // forwarding definitions below.
    void *library = dlopen("libnats.so.3.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(*(void **)&api.name = dlsym(library, #name))) { \
        snprintf(failure, sizeof failure, "libnats.so.3.4 has no %s", #name); \
        return; \
    }
#define RESOLVE_FUNCTION(ret, name, params, args) RESOLVE(name)
#define RESOLVE_VOID_FUNCTION(name, params, args) RESOLVE(name)
    NATS_FUNCTIONS(RESOLVE_FUNCTION)
    NATS_VOID_FUNCTIONS(RESOLVE_VOID_FUNCTION)
    loaded = 1;
}

int locus_nats_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (error && size > 0) snprintf(error, size, "%s", failure);
    return -1;
}

#define FORWARD(ret, name, params, args) ret name params { return api.name args; }
#define FORWARD_VOID(name, params, args) void name params { api.name args; }
NATS_FUNCTIONS(FORWARD)
NATS_VOID_FUNCTIONS(FORWARD_VOID)
