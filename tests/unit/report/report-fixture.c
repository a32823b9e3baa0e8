/* SPDX-License-Identifier: MIT */
#include <glib.h>
#include <string.h>

#include "report-fixture.h"
#include "testlib.h"

void fixture_init(fixture *x)
{
    memset(x, 0, sizeof *x);
    rd_facts_init(&x->facts);
    x->arch11 = (rd_arch){ .gfx = (char *)"gfx1100", .family = (char *)"gfx11" };
    x->arch942 = (rd_arch){ .gfx = (char *)"gfx1103", .family = (char *)"gfx11" };
    const char *addr[] = { "0000:03:00.0", "0000:04:00.0", "0000:64:00.0" };
    for (int i = 0; i < 3; i++) {
        x->pci[i] = (rd_pci_device){ .address = (char *)addr[i],
                                     .driver = (char *)"amdgpu",
                                     .current_link_speed = 16.0,
                                     .max_link_speed = 16.0,
                                     .current_link_width = i == 1 ? 4 : 16,
                                     .max_link_width = 16 };
        x->gpus[i] = (rd_gpu){ .pci = &x->pci[i], .link = &x->pci[i], .name = "AMD GPU" };
    }
    strcpy(x->gpus[0].gfx, "gfx1100");
    x->gpus[0].arch = &x->arch11;
    x->gpus[0].vram_bytes = 24 * (UINT64_C(1) << 30);
    x->gpus[0].name = "Radeon \"Pro\" \\ W7900\nX";
    strcpy(x->gpus[1].gfx, "gfx1100");
    x->gpus[1].arch = &x->arch11;
    x->gpus[1].vram_bytes = 20 * (UINT64_C(1) << 30) + 5;
    strcpy(x->gpus[2].gfx, "gfx1103");
    x->gpus[2].arch = &x->arch942;
    x->gpus[2].integrated = true;
    x->gpus[2].vram_bytes = 512 << 20;
    x->view = (rd_gpu_view){ .gpus = x->gpus, .n_gpus = 3 };
}

void fixture_free(fixture *x)
{
    rd_findings_free(&x->findings);
    rd_facts_free(&x->facts);
}

char *render(int (*fn)(FILE *, const rd_facts *, const rd_gpu_view *, const rd_findings *), fixture *x)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    g_assert_nonnull(f);
    g_assert_cmpint(fn(f, &x->facts, &x->view, &x->findings), ==, 0);
    fclose(f);
    return buf;
}
