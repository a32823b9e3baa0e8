/* SPDX-License-Identifier: MIT */
/* The probe table: what each descriptor declares holds together, and the
 * assess order honours every declared dependency. */
#include <glib.h>

#include "check.h"
#include "facts-json.h"
#include "registry.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

static ssize_t index_of(const rd_probe *const *order, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (streq(order[i]->id, id))
            return (ssize_t)i;
    return -1;
}

static char *probe_ids(const rd_probe *const *order, size_t n)
{
    GString *out = g_string_new(NULL);
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(out, "%s%s", i ? " " : "", order[i]->id);
    return g_string_free(out, FALSE);
}

/* The assess order sorted from .needs: every probe once, and the order the
 * reports have always had (drm, which has no assess step, aside). */
static void t_assess_order(void)
{
    const rd_probe_table *t = &rd_probe_registry;
    for (size_t i = 0; i < t->n_gather; i++)
        g_assert_cmpint(index_of(t->gather, t->n_gather, t->gather[i]->id), ==, (ssize_t)i);
    g_autofree const rd_probe **order = g_new0(const rd_probe *, t->n_gather);
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_probe_assess_order(t, order, &err), ==, 0);
    g_assert_null(err);
    g_autofree char *ids = probe_ids(order, t->n_gather);
    g_assert_cmpstr(ids, ==,
                    "os pci drm driver kfd access boot packages-rpm rocm apt repos-rpm env apu container tuning torch "
                    "wheels health runtime slurm");
}

static void t_needs_are_honoured(void)
{
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_probe_table_check(&rd_probe_registry, &err), ==, 0);
    size_t declared = 0;
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        for (const char *const *n = rd_probe_registry.gather[i]->needs; n && *n; n++)
            declared++;
    for (size_t k = 0; k < RD_N_FINDINGS; k++)
        declared += (rd_finding_catalogue[k].flags & rd_probe_runtime.needs_flags) != 0;
    /* kfd reads pci's atomics finding, the runtime its level-1 causes */
    g_assert_cmpuint(declared, >=, 15);
}

static void t_areas_exist(void)
{
    rd_facts f;
    rd_facts_init(&f);
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++) {
        const rd_probe *p = rd_probe_registry.gather[i];
        /* a probe that gathers says what it fills, so the daemon can
         * re-gather it alone */
        if (p->gather)
            g_assert_nonnull(p->areas);
        for (const char *const *a = p->areas; a && *a; a++)
            g_assert_cmpint(rd_facts_reset_area(&f, *a), ==, 0);
    }
    rd_facts_free(&f);
}

static void t_reads_are_absolute(void)
{
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        for (const rd_probe_input *in = rd_probe_registry.gather[i]->reads; in && in->path; in++) {
            g_assert_true(in->path[0] == '/');
            g_assert_false(g_str_has_suffix(in->path, "/"));
        }
}

static void t_findings_unique(void)
{
    /* arch.no-kernels is shared by rocm's install, torch's build and the
     * ROCm wheels, rocm.multiple-versions by rocm and the wheels: the same
     * cause, found in another kind of installation */
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        for (const char *const *f = rd_probe_registry.gather[i]->findings; f && *f; f++) {
            if (g_hash_table_contains(seen, *f))
                g_assert_true(streq(*f, "arch.no-kernels") || streq(*f, "rocm.multiple-versions"));
            g_hash_table_add(seen, (gpointer)*f);
            g_assert_true(rd_probe_table_knows(&rd_probe_registry, *f));
        }
    g_assert_true(rd_probe_table_knows(&rd_probe_registry, "gpu.count-mismatch"));
    g_assert_false(rd_probe_table_knows(&rd_probe_registry, "no.such-finding"));
}

/* The catalogue and the probes agree: every id a probe declares has a
 * row, every row is declared by a probe (or is the configuration's), and
 * a probe reports each id with at most the row's severity. */
static void t_catalogue(void)
{
    g_assert_cmpuint(RD_N_FINDINGS, >=, 98);
    for (size_t k = 0; k < RD_N_FINDINGS; k++) {
        const rd_finding_def *d = &rd_finding_catalogue[k];
        g_assert_true(rd_finding_lookup(d->id) == d);
        g_assert_true(rd_probe_table_knows(&rd_probe_registry, d->id));
        g_assert_cmpint(d->severity, >=, RD_SEV_OK);
        g_assert_cmpint(d->severity, <=, RD_SEV_ERROR);
        for (size_t j = 0; j < k; j++)
            g_assert_cmpstr(rd_finding_catalogue[j].id, !=, d->id);
    }
    for (size_t i = 0; i < rd_probe_registry.n_gather; i++)
        for (const char *const *f = rd_probe_registry.gather[i]->findings; f && *f; f++)
            g_assert_nonnull(rd_finding_lookup(*f));
    g_assert_null(rd_finding_lookup("no.such-finding"));
    g_assert_cmpstr(RD_FINDING(DRIVER_KERNEL_TOO_OLD), ==, "driver.kernel-too-old");
    g_assert_true(rd_finding_lookup(RD_FINDING(DRIVER_KERNEL_TOO_OLD))->flags & RD_FINDING_NO_GPU);
    g_assert_true(rd_finding_lookup(RD_FINDING(ARCH_UNSUPPORTED))->flags & RD_FINDING_BAD_ISA);
    g_assert_cmpuint(rd_finding_lookup(RD_FINDING(GPU_NONE))->flags, ==, RD_FINDING_NO_GPU);
    g_assert_cmpuint(rd_finding_lookup(RD_FINDING(GPU_HOT))->flags, ==, 0);
}

/* clang-format off */
/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

static void test_healthy(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_OK);

    /* the view joined PCI, DRM and KFD */
    g_assert_cmpuint(r.view.n_gpus, ==, 1);
    const rd_gpu *g = &r.view.gpus[0];
    g_assert_cmpstr(g->pci->address, ==, NAVI31);
    g_assert_cmpstr(g->gfx, ==, "gfx1100");
    g_assert_true(g->gfx_from_kfd);
    g_assert_cmpuint(g->n_kfd, ==, 1);
    g_assert_cmpint(g->kfd[0]->node_id, ==, 1);
    g_assert_nonnull(g->drm);
    g_assert_cmpuint(g->vram_bytes, ==, 24 * GIB);
    g_assert_cmpstr(g->name, ==, NAVI31_NAME);
    g_assert_false(g->integrated);
    /* the switch's upstream port carries the slot's link */
    g_assert_cmpstr(g->link->address, ==, NAVI31_UPSTREAM);
    g_assert_cmpuint(r.view.n_unmatched, ==, 0);
    result_free(&r);
    rd_facts_free(&f);
}


/* The assess order honours what each probe declares it reads, whatever
 * the table's order; a need no probe reports, or probes that read each
 * other's findings, are errors. */
static const char *const loop_a_findings[] = { "loop.a", NULL };
static const char *const loop_b_findings[] = { "loop.b", NULL };
static void loop_assess(const rd_assess_input *in, rd_findings *out)
{
}
static const rd_probe loop_a = { .id = "loop-a",
                                 .findings = loop_a_findings,
                                 .needs = loop_b_findings,
                                 .assess = loop_assess };
static const rd_probe loop_b = { .id = "loop-b",
                                 .findings = loop_b_findings,
                                 .needs = loop_a_findings,
                                 .assess = loop_assess };

static void test_probe_order(void)
{
    /* runtime first, kfd before pci: sorted after their causes */
    const rd_probe *table[] = { &rd_probe_runtime, &rd_probe_kfd, &rd_probe_os,        &rd_probe_pci,
                                &rd_probe_driver,  &rd_probe_env, &rd_probe_container, &rd_probe_access,
                                &rd_probe_apu,     &rd_probe_rocm };
    rd_probe_table t = { table, G_N_ELEMENTS(table) };
    const rd_probe *order[G_N_ELEMENTS(table)];
    g_autofree char *err = NULL;
    g_assert_cmpint(rd_probe_assess_order(&t, order, &err), ==, 0);
    g_autofree char *ids = probe_ids(order, G_N_ELEMENTS(table));
    g_assert_cmpstr(ids, ==, "os pci kfd driver env container access apu rocm runtime");

    /* without pci, kfd's need is reported by no probe */
    t = (rd_probe_table){ table + 1, 1 };
    g_assert_cmpint(rd_probe_assess_order(&t, order, &err), ==, -EINVAL);
    g_assert_cmpstr(err, ==, "probe kfd reads pcie.atomics-missing, which no probe reports");
    g_clear_pointer(&err, g_free);

    const rd_probe *loop[] = { &rd_probe_os, &loop_a, &loop_b };
    t = (rd_probe_table){ loop, G_N_ELEMENTS(loop) };
    g_assert_cmpint(rd_probe_table_check(&t, &err), ==, -ELOOP);
    g_assert_cmpstr(err, ==, "probe loop-a reads the findings of probes that read its own");
}

static const rd_test_case tests[] = {
    { "/registry/assess-order", t_assess_order },
    { "/registry/needs-are-honoured", t_needs_are_honoured },
    { "/registry/catalogue", t_catalogue },
    { "/registry/areas-exist", t_areas_exist },
    { "/registry/reads-are-absolute", t_reads_are_absolute },
    { "/registry/findings-unique", t_findings_unique },
    { "/assess/healthy", test_healthy },
    { "/assess/probe-order", test_probe_order },
};
/* clang-format on */

RD_TEST_MAIN_KNOWLEDGE(tests, false, &knowledge)
