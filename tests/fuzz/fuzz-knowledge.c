/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "knowledge.h"
#include "util.h"

/* The loader reads a file by name: one temporary file in memory (/dev/shm),
 * rewritten per input and removed at exit. */
static char path[] = "/dev/shm/rocm-doctor-fuzz-knowledge-XXXXXX";
static int fd = -1;

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        if ((fd = mkstemp(path)) < 0)
            abort();
        atexit(remove_file);
    }
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();

    rd_knowledge k = { 0 };
    char *err = NULL;
    if (rd_knowledge_load_archs(path, &k, &err) < 0) {
        if (!err || !startswith(err, path))
            abort();
    } else {
        /* a table that loads describes each target consistently */
        for (size_t i = 0; i < k.n_archs; i++) {
            char name[16];
            if (!rd_gfx_name(k.archs[i].gfx_target_version, name, sizeof name) || !streq(name, k.archs[i].gfx))
                abort();
        }
    }
    free(err);
    rd_knowledge_free(&k);

    /* pci-ids.ini, health.ini ([vram], [vram-left-out], [firmware-known-bad]), wheels.ini:
     * a table that fails names its file */
    int (*const loaders[])(const char *, rd_knowledge *, char **) = {
        rd_knowledge_load_pci_ids,
        rd_knowledge_load_health,
        rd_knowledge_load_wheels,
    };
    for (size_t i = 0; i < ELEMENTSOF(loaders); i++) {
        err = NULL;
        if (loaders[i](path, &k, &err) < 0 && (!err || !startswith(err, path)))
            abort();
        free(err);
        rd_knowledge_free(&k);
    }
    return 0;
}
