/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the errors table: the first byte picks the loader
 * (the rest is a table) or the matcher (the rest is a pasted message, matched
 * against the shipped table). Aborts when an invariant breaks. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "build-config.h"
#include "explain.h"
#include "util.h"

static char path[] = "/tmp/rocm-doctor-fuzz-errors-XXXXXX";
static int fd = -1;
static rd_error_table shipped;
static bool loaded;

static void load_shipped(void)
{
    const char *dir = getenv("ROCM_DOCTOR_DATA_DIR");
    char *file = xasprintf("%s/errors.ini", dir ? dir : RD_SOURCE_CONFDIR);
    char *err = NULL;
    if (rd_error_table_load(file, NULL, &shipped, &err) < 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    free(file);
    loaded = true;
}

static void fuzz_load(const uint8_t *data, size_t size)
{
    if (fd < 0 && (fd = mkstemp(path)) < 0)
        abort();
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    rd_error_table t = { 0 };
    char *err = NULL;
    if (rd_error_table_load(path, NULL, &t, &err) < 0) {
        if (!err || !startswith(err, path) || t.entries)
            abort();
    } else {
        /* a table that loads is complete */
        if (!t.info.name || !t.info.version || !t.info.date || t.n_entries == 0)
            abort();
        for (size_t i = 0; i < t.n_entries; i++)
            if (!t.entries[i].title || !t.entries[i].meaning || !t.entries[i].causes ||
                (!t.entries[i].patterns && t.entries[i].n_codes == 0))
                abort();
    }
    free(err);
    rd_error_table_free(&t);
}

static void fuzz_match(const uint8_t *data, size_t size)
{
    if (!loaded)
        load_shipped();
    char *text = fuzz_strndup(data, size);
    char *norm = rd_error_normalize(text);
    size_t len = strlen(norm);
    rd_error_matches m;
    rd_error_match_text(&shipped, text, &m);
    for (size_t i = 0; i < m.n; i++) {
        /* spans inside the normalized text, in text order, one per entry */
        if (!m.items[i].entry || !m.items[i].how || m.items[i].start >= m.items[i].end || m.items[i].end > len)
            abort();
        if (i > 0 && m.items[i - 1].start > m.items[i].start)
            abort();
        for (size_t k = 0; k < i; k++)
            if (m.items[k].entry == m.items[i].entry)
                abort();
    }
    rd_error_matches_free(&m);
    free(norm);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] & 1)
        fuzz_load(data + 1, size - 1);
    else
        fuzz_match(data + 1, size - 1);
    return 0;
}
