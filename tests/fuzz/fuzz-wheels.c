/* SPDX-License-Identifier: MIT */
/* The ROCm wheel parsers (probes/wheels.c) on arbitrary bytes: the first
 * byte picks METADATA headers (rd_wheel_metadata_parse) or a distribution
 * name (rd_wheel_normalize, rd_wheel_is_rocm_dist, rd_wheel_family_parse
 * against a small table). What they return must be plain tokens and gfx
 * targets, never text from the input's description or a control byte. */
#include <ctype.h>
#include <errno.h>
#include "fuzz.h"
#include "wheels.h"
#include "util.h"

static bool plain(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

static void fuzz_metadata(const char *text)
{
    char *name = NULL, *version = NULL;
    int r = rd_wheel_metadata_parse(text, &name, &version);
    if (r == 0 && (!plain(name) || !plain(version)))
        abort();
    if (r < 0 && (r != -EINVAL || name || version))
        abort();
    free(name);
    free(version);
}

static void fuzz_dist(const char *text)
{
    static char *gfx94[] = { (char *)"gfx942", NULL };
    static char *gfx110[] = { (char *)"gfx1100", (char *)"gfx1101", NULL };
    static rd_wheel_family families[] = {
        { (char *)"gfx94X-dcgpu", gfx94, true },
        { (char *)"gfx110X-all", gfx110, true },
    };
    rd_knowledge k = { .wheel_families = families, .n_wheel_families = 2 };
    char *norm = rd_wheel_normalize(text);
    for (const char *p = norm; *p; p++)
        if (*p == '_' || *p == '.' || isupper((unsigned char)*p) || (*p == '-' && p[1] == '-'))
            abort();
    (void)rd_wheel_is_rocm_dist(norm);
    char *family = NULL, **gfx = NULL;
    int r = rd_wheel_family_parse(&k, text, &family, &gfx);
    if (r == 0) {
        if (!family && !gfx)
            abort();
        if (family && !plain(family))
            abort();
        for (size_t i = 0; gfx && gfx[i]; i++)
            if (!startswith(gfx[i], "gfx") || strlen(gfx[i]) > 8)
                abort();
    } else if ((r != -ENOENT && r != -EINVAL) || family || gfx)
        abort();
    free(family);
    strv_free(gfx);
    free(norm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = fuzz_strndup(data + 1, size - 1);
    if (data[0] & 1)
        fuzz_dist(text);
    else
        fuzz_metadata(text);
    free(text);
    return 0;
}
