/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <inttypes.h>
#include "build-config.h"
#include "report-health.h"
#include "report-runtime.h"
#include "term.h"
#include "util.h"
#include "catalogue.h"

#define BOLD RD_COLOR_BOLD
#define RESET RD_COLOR_RESET

static const char *c(const rd_term *t, rd_color code)
{
    return rd_term_color(t, code);
}

void rd_report_mark(const rd_term *t, rd_severity s)
{
    static const struct {
        rd_glyph glyph;
        rd_color color;
    } marks[] = {
        [RD_SEV_OK] = { RD_GLYPH_CHECK, RD_COLOR_GREEN },
        [RD_SEV_INFO] = { RD_GLYPH_INFO, RD_COLOR_BLUE },
        [RD_SEV_WARNING] = { RD_GLYPH_BANG, RD_COLOR_YELLOW },
        [RD_SEV_ERROR] = { RD_GLYPH_CROSS, RD_COLOR_RED },
    };
    size_t i = (size_t)s < ELEMENTSOF(marks) ? (size_t)s : RD_SEV_INFO;
    fprintf(t->out, "%s%s%s ", c(t, marks[i].color), rd_term_glyph(t, marks[i].glyph), c(t, RESET));
}

void rd_report_finding_text(const rd_term *t, const rd_finding *f, size_t indent, bool see_above)
{
    fprintf(t->out, "%*s", (int)indent, "");
    rd_report_mark(t, f->severity);
    _cleanup_free_ char *head = xasprintf("%s [%s]%s", f->summary, f->id, see_above ? " (see above)" : "");
    rd_term_wrap(t, head, indent + 2, indent + 2);
    if (see_above)
        return;
    for (size_t k = 0; f->evidence && f->evidence[k]; k++) {
        fprintf(t->out, "%*s", (int)indent + 4, "");
        rd_term_wrap_color(t, RD_COLOR_DIM, f->evidence[k], indent + 4, indent + 6);
    }
    if (f->remedy) {
        fprintf(t->out, "%*s%sFix:%s ", (int)indent + 2, "", c(t, BOLD), c(t, RESET));
        rd_term_wrap(t, f->remedy, indent + 7, indent + 7);
    }
}

/* "rocm-doctor 0.1.0[ verb]: OS, kernel K[...]" */
static void print_header(const rd_term *t, const rd_facts *f, const char *verb)
{
    strbuf h = { 0 };
    strbuf_printf(&h, "rocm-doctor %s%s: %s, kernel %s", PACKAGE_VERSION, verb,
                  f->os.pretty_name ? f->os.pretty_name
                  : f->os.id        ? f->os.id
                                    : "unknown OS",
                  f->os.kernel_release ? f->os.kernel_release : "unknown");
    if (f->os.container)
        strbuf_printf(&h, ", %s container", f->os.container);
    else if (f->os.virtualization)
        strbuf_printf(&h, ", %s VM", f->os.virtualization);
    if (f->root && !streq(f->root, "/"))
        strbuf_printf(&h, ", root %s", f->root);
    rd_term_wrap(t, h.s, 0, 2);
    free(h.s);
}

static const char *pcie_gen(double gts)
{
    if (gts >= 63)
        return "PCIe 6.0";
    if (gts >= 31)
        return "PCIe 5.0";
    if (gts >= 15)
        return "PCIe 4.0";
    if (gts >= 7.9)
        return "PCIe 3.0";
    if (gts >= 4.9)
        return "PCIe 2.0";
    if (gts >= 2.4)
        return "PCIe 1.0";
    return NULL;
}

static void print_gpu(const rd_term *t, const rd_gpu *g)
{
    fprintf(t->out, "  %s", c(t, BOLD));
    rd_term_puts(t, g->pci->address);
    fprintf(t->out, "%s  ", c(t, RESET));
    rd_term_wrap(t, g->name, 4 + rd_term_cells(g->pci->address), 16);

    strbuf b = { 0 };
    strbuf_printf(&b, "%s%s", g->gfx[0] ? g->gfx : "gfx unknown",
                  g->gfx[0] && !g->gfx_from_kfd ? " (from PCI id)" : "");
    if (g->integrated)
        strbuf_append(&b, ", integrated");
    strbuf_printf(&b, ", driver %s", g->pci->driver ? g->pci->driver : "none");
    if (g->n_kfd > 1)
        strbuf_printf(&b, ", %zu partitions", g->n_kfd);
    if (g->vram_bytes) {
        char sz[32];
        rd_format_bytes(g->vram_bytes, sz, sizeof sz);
        strbuf_printf(&b, ", %s VRAM", sz);
    }
    fprintf(t->out, "%16s", "");
    rd_term_wrap(t, b.s, 16, 16);
    free(b.s);

    const rd_pci_device *l = g->link;
    if (!g->integrated && l->max_link_width > 0) {
        const char *gen = pcie_gen(l->max_link_speed);
        fprintf(t->out, "%16s%s%sx%" PRId64 ", now %.1f GT/s x%" PRId64 "\n", "", gen ? gen : "link", " ",
                l->max_link_width, l->current_link_speed, l->current_link_width);
    }
    /* Further lines about one GPU go here, each from its own function
     * printing whole lines indented by 16 through rd_term_wrap(). */
}

/* ROCm installed as Python wheels: one line each, then where. */
static void print_wheels(const rd_term *t, const rd_wheel_facts *wf)
{
    fprintf(t->out, "\n%sROCm Python wheels%s\n", c(t, BOLD), c(t, RESET));
    for (size_t i = 0; i < wf->n_installs; i++) {
        const rd_wheel_install *w = &wf->installs[i];
        strbuf b = { 0 };
        strbuf_printf(&b, "ROCm %s", w->version ? w->version : "(version unknown)");
        if (w->family || w->gfx) {
            strbuf_printf(&b, " for %s", w->family ? w->family : "");
            for (size_t k = 0; w->gfx && w->gfx[k]; k++)
                strbuf_printf(&b, "%s%s", k ? " " : w->family ? " (" : "", w->gfx[k]);
            if (w->family && w->gfx)
                strbuf_append(&b, ")");
        }
        strbuf_printf(&b, ", %s (%s)", w->prefix, w->source);
        fprintf(t->out, "  ");
        rd_term_wrap(t, b.s, 2, 4);
        free(b.s);
        _cleanup_free_ char *where =
            xasprintf("%s, runtime %s%s", w->site_packages, w->runtime ? "_rocm_sdk_core/lib/" : "missing",
                      w->runtime ? w->hip_library : "");
        fprintf(t->out, "    ");
        rd_term_wrap_color(t, RD_COLOR_DIM, where, 4, 6);
    }
}

/* The closing line: all good, or the counts. */
static void print_verdict(const rd_term *t, const rd_gpu_view *v, const rd_findings *fs, const size_t counts[4],
                          size_t users_unchecked)
{
    int status = rd_findings_exit_status(fs);
    size_t computed = 0;
    for (size_t i = 0; i < fs->n; i++)
        computed += streq(fs->items[i].id, RD_FINDING(RUNTIME_KERNEL_OK));
    if (v->n_gpus > 0 && status == RD_EXIT_OK && users_unchecked > 0) {
        rd_report_mark(t, RD_SEV_OK);
        fprintf(t->out, "ROCm's hardware and driver checks pass for %zu GPU%s; access was not checked.\n", v->n_gpus,
                v->n_gpus == 1 ? "" : "s");
    } else if (v->n_gpus > 0 && status == RD_EXIT_OK) {
        _cleanup_free_ char *line =
            computed > 0 ? xasprintf("ROCm's hardware, driver and access checks pass for %zu GPU%s, and a kernel "
                                     "computes correctly on %zu.",
                                     v->n_gpus, v->n_gpus == 1 ? "" : "s", computed)
                         : xasprintf("ROCm's hardware, driver and access checks pass for %zu GPU%s.", v->n_gpus,
                                     v->n_gpus == 1 ? "" : "s");
        rd_report_mark(t, RD_SEV_OK);
        rd_term_wrap(t, line, 2, 2);
    } else
        fprintf(t->out, "%zu error%s, %zu warning%s.\n", counts[RD_SEV_ERROR], counts[RD_SEV_ERROR] == 1 ? "" : "s",
                counts[RD_SEV_WARNING], counts[RD_SEV_WARNING] == 1 ? "" : "s");
}

void rd_report_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color)
{
    rd_term t;
    rd_term_init(&t, out, color);
    print_header(&t, f, "");

    if (v->n_gpus > 0) {
        fprintf(out, "\n%sGPUs%s\n", c(&t, BOLD), c(&t, RESET));
        for (size_t i = 0; i < v->n_gpus; i++)
            print_gpu(&t, &v->gpus[i]), rd_report_health_line(out, f, &v->gpus[i]);
    }
    if (f->wheels.n_installs > 0)
        print_wheels(&t, &f->wheels);
    if (f->runtime.ran) {
        fputc('\n', out);
        rd_report_runtime_table(&t, f, v);
    }

    size_t counts[4] = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        counts[fs->items[i].severity]++;

    if (fs->n > 0)
        fprintf(out, "\n%s%s%s\n", c(&t, BOLD), counts[RD_SEV_ERROR] + counts[RD_SEV_WARNING] ? "Problems" : "Notes",
                c(&t, RESET));
    for (size_t i = 0; i < fs->n; i++) {
        if (i > 0)
            fputc('\n', out);
        rd_report_finding_text(&t, &fs->items[i], 0, false);
    }
    if (f->access.not_checked && v->n_gpus > 0) {
        fputc('\n', out);
        rd_term_wrap(&t, f->access.not_checked, 0, 0);
    }
    /* A user named on purpose (--user, users in the configuration) who
     * cannot be looked up: their access was not checked, and the verdict
     * must not say it passed. */
    size_t unchecked = 0;
    for (size_t i = 0; i < f->access.n_users; i++) {
        const rd_user_facts *u = &f->access.users[i];
        if (!u->error || (u->source && streq(u->source, "invoking user")))
            continue;
        _cleanup_free_ char *line = xasprintf("Access to the GPUs not checked for %s (%s): %s", strempty(u->name),
                                              strempty(u->source), u->error);
        fputc('\n', out);
        rd_report_mark(&t, RD_SEV_WARNING);
        rd_term_wrap(&t, line, 2, 2);
        unchecked++;
    }
    fputc('\n', out);
    print_verdict(&t, v, fs, counts, unchecked);
}

/* ---------------------------------------------------------------------- */
/* Level 2 */

void rd_hip_version_string(int64_t v, char *buf, size_t size)
{
    if (v <= 0)
        snprintf(buf, size, "unknown");
    else
        snprintf(buf, size, "%" PRId64 ".%" PRId64 ".%" PRId64, v / 10000000, v / 100000 % 100, v % 100000);
}

static const char *device_state(const rd_runtime_facts *rt, const rd_runtime_device *d)
{
    bool at_it = rt->child_stage && rt->child_stage_device == d->index;
    if (at_it && streq_ptr(rt->child_status, "timeout"))
        return "HUNG";
    if (at_it && streq_ptr(rt->child_status, "signal"))
        return strstr(rt->child_stage, "hiprtc") && d->result ? (streq(d->result, "ok") ? "ok" : d->result) : "CRASHED";
    if (!d->result)
        return "not run";
    if (streq(d->result, "ok"))
        return "ok";
    if (streq(d->result, "wrong-result"))
        return "WRONG RESULT";
    if (streq(d->result, "error"))
        return "FAILED";
    if (streq(d->result, "no-code-object"))
        return "no kernel";
    return d->result;
}

static const char *hiprtc_state(const rd_runtime_facts *rt, const rd_runtime_device *d)
{
    if (rt->child_stage && rt->child_stage_device == d->index && strstr(rt->child_stage, "hiprtc") &&
        (streq_ptr(rt->child_status, "signal") || streq_ptr(rt->child_status, "timeout")))
        return streq(rt->child_status, "signal") ? "CRASHED" : "HUNG";
    if (!d->hiprtc)
        return "-";
    if (streq(d->hiprtc, "ok"))
        return "ok";
    if (streq(d->hiprtc, "failed"))
        return "FAILED";
    if (streq(d->hiprtc, "wrong-result"))
        return "WRONG";
    if (streq(d->hiprtc, "unavailable"))
        return "none";
    return d->hiprtc;
}

/* The table's header, or a line saying why there is no table. */
static bool print_runtime_head(const rd_term *t, const rd_runtime_facts *rt)
{
    char ver[32];
    strbuf h = { 0 };
    fprintf(t->out, "%sRuntime (level 2)%s\n", c(t, BOLD), c(t, RESET));
    if (rt->hsa_library)
        strbuf_printf(&h, "HSA %s%s%s", rt->hsa_version ? rt->hsa_version : "", rt->hsa_version ? " " : "",
                      rt->hsa_library);
    else
        strbuf_append(&h, "HSA not found");
    if (rt->hip_library) {
        rd_hip_version_string(rt->hip_runtime_version, ver, sizeof ver);
        strbuf_printf(&h, ", HIP %s %s", ver, rt->hip_library);
    } else if (rt->hip_load_error)
        strbuf_append(&h, ", HIP not found");
    fputs("  ", t->out);
    rd_term_wrap(t, h.s, 2, 4);
    free(h.s);
    if (rt->n_devices > 0)
        return true;

    strbuf b = { 0 };
    if (rt->error)
        strbuf_printf(&b, "not run: %s", rt->error);
    else if (streq_ptr(rt->child_status, "timeout"))
        strbuf_printf(&b, "no GPU tested: the runtime hung at %s", strempty(rt->child_stage));
    else if (streq_ptr(rt->child_status, "signal"))
        strbuf_printf(&b, "no GPU tested: the runtime crashed (%s) at %s", strempty(rt->child_signal_name),
                      strempty(rt->child_stage));
    else if (rt->hsa_library && rt->hsa_init_status > 0)
        strbuf_printf(&b, "no GPU tested: hsa_init: %s%s%s", strempty(rt->hsa_init_status_name),
                      rt->hip_device_count_status_name ? ", hipGetDeviceCount: " : "",
                      strempty(rt->hip_device_count_status_name));
    else if (rt->hip_library)
        strbuf_printf(&b, "no GPU tested: hipGetDeviceCount: %s, %" PRId64 " devices",
                      strempty(rt->hip_device_count_status_name), rt->hip_device_count < 0 ? 0 : rt->hip_device_count);
    else
        strbuf_append(&b, "no GPU tested: the runtime is not installed");
    fputs("  ", t->out);
    rd_term_wrap(t, b.s, 2, 4);
    free(b.s);
    return false;
}

static void print_runtime_row(const rd_term *t, const rd_runtime_facts *rt, const rd_runtime_device *d)
{
    const char *state = device_state(rt, d);
    bool good = streq(state, "ok");
    char buf[32];
    fputs("  ", t->out);
    rd_term_cell(t, d->pci_address ? d->pci_address : "?", 14);
    rd_term_cell(t, d->gfx ? d->gfx : "?", 9);
    fputs(c(t, good ? RD_COLOR_GREEN : streq(state, "no kernel") ? RD_COLOR_BLUE : RD_COLOR_RED), t->out);
    rd_term_cell(t, state, 14);
    fputs(c(t, RESET), t->out);
    if (good && d->launch_latency_us > 0) {
        snprintf(buf, sizeof buf, "%.1f %ss", d->launch_latency_us, rd_term_glyph(t, RD_GLYPH_MICRO));
        rd_term_cell(t, buf, 10);
        snprintf(buf, sizeof buf, "%.1f GB/s", d->h2d_gbps);
        rd_term_cell(t, buf, 11);
        snprintf(buf, sizeof buf, "%.1f GB/s", d->d2h_gbps);
        rd_term_cell(t, buf, 11);
    } else
        rd_term_cell(t, "-", 10), rd_term_cell(t, "-", 11), rd_term_cell(t, "-", 11);
    rd_term_puts(t, hiprtc_state(rt, d));
    fputc('\n', t->out);
}

void rd_report_runtime_table(const rd_term *t, const rd_facts *f, const rd_gpu_view *v)
{
    const rd_runtime_facts *rt = &f->runtime;
    if (!print_runtime_head(t, rt))
        return;
    _cleanup_free_ char *h2d = xasprintf("host%sdev", rd_term_glyph(t, RD_GLYPH_ARROW));
    _cleanup_free_ char *d2h = xasprintf("dev%shost", rd_term_glyph(t, RD_GLYPH_ARROW));
    fprintf(t->out, "  %s", c(t, RD_COLOR_DIM));
    rd_term_cell(t, "GPU", 14), rd_term_cell(t, "gfx", 9), rd_term_cell(t, "kernel", 14);
    rd_term_cell(t, "launch", 10), rd_term_cell(t, h2d, 11), rd_term_cell(t, d2h, 11);
    fprintf(t->out, "hiprtc%s\n", c(t, RESET));
    for (size_t i = 0; i < rt->n_devices; i++)
        print_runtime_row(t, rt, &rt->devices[i]);
    /* GPUs the static checks found that HIP did not offer */
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        bool seen = false;
        for (size_t k = 0; k < rt->n_devices; k++)
            seen |= streq_ptr(rt->devices[k].pci_address, g->pci->address);
        if (seen)
            continue;
        fputs("  ", t->out);
        rd_term_cell(t, g->pci->address, 14);
        rd_term_cell(t, g->gfx[0] ? g->gfx : "?", 9);
        fprintf(t->out, "%snot offered by HIP%s\n", c(t, RD_COLOR_YELLOW), c(t, RESET));
    }
}

void rd_report_verify_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color)
{
    rd_term t;
    rd_term_init(&t, out, color);
    print_header(&t, f, " verify");
    fputc('\n', out);
    rd_report_runtime_table(&t, f, v);

    size_t other = 0, shown = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const rd_finding *fd = &fs->items[i];
        if (!startswith(fd->id, "runtime.")) {
            other += fd->severity >= RD_SEV_WARNING;
            continue;
        }
        if (fd->severity == RD_SEV_OK)
            continue; /* the table says it */
        fputc('\n', out);
        rd_report_finding_text(&t, fd, 0, false);
        shown++;
    }
    fputc('\n', out);
    size_t ok = 0;
    for (size_t i = 0; i < fs->n; i++)
        ok += streq(fs->items[i].id, RD_FINDING(RUNTIME_KERNEL_OK));
    if (f->runtime.n_devices == 0)
        fprintf(out, "No GPU was tested.\n");
    else if (ok > 0 && shown == 0) {
        rd_report_mark(&t, RD_SEV_OK);
        fprintf(out, "The kernel computes correctly on %zu GPU%s.\n", ok, ok == 1 ? "" : "s");
    } else
        fprintf(out, "%zu of %zu GPU%s computed correctly.\n", ok, f->runtime.n_devices,
                f->runtime.n_devices == 1 ? "" : "s");
    if (other > 0)
        fprintf(out, "The static checks found %zu other problem%s: see rocm-doctor check.\n", other,
                other == 1 ? "" : "s");
}
