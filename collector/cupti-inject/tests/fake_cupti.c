/* A stand-in for libcupti.so with the entry points the injection library
 * resolves, so its start and exit paths run on a machine without a GPU. It
 * records nothing: every flush hands back one empty buffer. Results can be
 * turned into errors from the environment:
 *   FAKE_CUPTI_REGISTER=N        cuptiActivityRegisterCallbacks returns N
 *   FAKE_CUPTI_ENABLE_KERNEL=N   cuptiActivityEnable(CONCURRENT_KERNEL) returns N
 *   FAKE_CUPTI_CLOCK_BACKWARDS=1 the second timestamp is before the first
 *   FAKE_CUPTI_FLUSH_MS=N        cuptiActivityFlushAll takes N ms (a slow flush)
 * Built by the tests with `cc -shared -fPIC`. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef void (*requested_t)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*completed_t)(void *context, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);

static requested_t requested;
static completed_t completed;
static int registrations;
static int timestamps;

static int result_from_env(const char *name) {
    const char *value = getenv(name);
    return value ? atoi(value) : 0;
}

int cuptiActivityRegisterCallbacks(requested_t r, completed_t c) {
    registrations++;
    requested = r;
    completed = c;
    return result_from_env("FAKE_CUPTI_REGISTER");
}

int cuptiActivityEnable(uint32_t kind) {
    return kind == 10 /* CONCURRENT_KERNEL */ ? result_from_env("FAKE_CUPTI_ENABLE_KERNEL") : 0;
}

int cuptiActivityDisable(uint32_t kind) {
    (void)kind;
    return 0;
}

int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, uint8_t **record) {
    (void)buffer;
    (void)valid;
    (void)record;
    return 3; /* CUPTI_ERROR_MAX_LIMIT_REACHED: no more records */
}

int cuptiActivityGetNumDroppedRecords(void *context, uint32_t stream, size_t *dropped) {
    (void)context;
    (void)stream;
    *dropped = 0;
    return 0;
}

int cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    uint8_t *buffer = NULL;
    size_t size = 0, max_records = 0;
    int ms = result_from_env("FAKE_CUPTI_FLUSH_MS");
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    if (ms > 0) nanosleep(&pause, NULL);
    if (requested && completed) {
        requested(&buffer, &size, &max_records);
        if (buffer) completed(NULL, 0, buffer, size, 0);
    }
    return 0;
}

int cuptiGetTimestamp(uint64_t *t) {
    int n = timestamps++;
    if (result_from_env("FAKE_CUPTI_CLOCK_BACKWARDS")) *t = n == 0 ? 5000000000ull : 7;
    else *t = 1000000ull + 1000000ull * (uint64_t)n;
    return 0;
}

int cuptiGetResultString(int result, const char **text) {
    *text = result == 35 ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_UNKNOWN";
    return 0;
}

/* For the tests: how often the injection library registered its callbacks. */
int fake_cupti_registrations(void) { return registrations; }
