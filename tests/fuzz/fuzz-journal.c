/* SPDX-License-Identifier: MIT */
/* journal.json as `undo` reads it: arbitrary bytes written as the journal of
 * one run in a scratch root, then rd_journal_undo on that run. Besides
 * memory errors: nothing outside the root changes (a canary beside it stays
 * byte for byte), and an undo that succeeds leaves its journal saying the
 * run is undone or rolled back. The root is emptied after every input.
 * Commands in the journal are never run: under a --root undo defers them
 * all to the tree's first boot. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz.h"
#include "journal.h"
#include "json-util.h"
#include "util.h"

#define RUN_ID "20260101-000000"
#define CANARY "do not touch\n"

static char base[64];
static char root[96];
static char canary[96];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "we");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
}

static void remove_base(void)
{
    nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    rmdir(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(base, sizeof base, "/dev/shm/rd-fuzz-journal-XXXXXX");
    if (!mkdtemp(base))
        abort();
    snprintf(root, sizeof root, "%s/root", base);
    snprintf(canary, sizeof canary, "%s/canary", base);
    if (mkdir(root, 0755) < 0)
        abort();
    write_file(canary, (const uint8_t *)CANARY, strlen(CANARY));
    atexit(remove_base);
    return 0;
}

static void make_dirs(const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s", root);
    for (const char *p = rel; *p;) {
        const char *slash = strchr(p + 1, '/');
        size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
        snprintf(path, sizeof path, "%s%.*s", root, (int)n, rel);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            abort();
        p = slash ? slash : p + strlen(p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    make_dirs("/var/lib/rocm-doctor/journal/" RUN_ID "/files");
    make_dirs("/etc");
    char path[256];
    snprintf(path, sizeof path, "%s/var/lib/rocm-doctor/journal/" RUN_ID "/journal.json", root);
    write_file(path, data, size);
    rd_ctx ctx;
    char *error = NULL;
    if (rd_ctx_open_root(&ctx, root, &error) < 0)
        abort();
    rd_apply_result res = { 0 };
    int r = rd_journal_undo(&ctx, RUN_ID, &res, &error);
    if (r == 0) {
        rd_apply_result_free(&res);
        char *text = NULL;
        if (read_file_at(AT_FDCWD, path, 64 << 20, &text, NULL) < 0)
            abort();
        json_object *j = json_tokener_parse(text);
        const char *state = j ? rd_json_get_str(j, "state") : NULL;
        if (!streq_ptr(state, "undone") && !streq_ptr(state, "rolled-back"))
            abort();
        json_object_put(j);
        free(text);
    } else if (!error)
        abort();
    free(error);
    rd_ctx_free(&ctx);
    char *c = NULL;
    if (read_file_at(AT_FDCWD, canary, 4096, &c, NULL) < 0 || !streq(c, CANARY))
        abort();
    free(c);
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
