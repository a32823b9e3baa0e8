/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <inttypes.h>
#include "build-config.h"
#include "report-health.h"
#include "report-runtime.h"
#include "term.h"
#include "util.h"

#define WIDTH 80

typedef struct {
    FILE *out;
    bool color;
} term;

static const char *c(const term *t, const char *code) { return t->color ? code : ""; }
#define RED "\033[1;31m"
#define YELLOW "\033[1;33m"
#define BLUE "\033[1;34m"
#define GREEN "\033[1;32m"
#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RESET "\033[0m"


/* Prints text wrapped at WIDTH columns; the first line after `first`
 * (already printed, `first_len` columns), the rest indented by `indent`. */
static void wrap(const term *t, const char *text, size_t first_len, size_t indent)
{
    size_t col = first_len;
    const char *p = text;
    bool line_start = true;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (!line_start && col + 1 + w > WIDTH) {
            fprintf(t->out, "\n%*s", (int)indent, "");
            col = indent;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', t->out);
            col++;
        }
        /* a word longer than a line (a path, a log line) is cut hard */
        while (col + w > WIDTH && w > WIDTH - indent) {
            size_t take = WIDTH - col;
            fwrite(p, 1, take, t->out);
            p += take;
            w -= take;
            fprintf(t->out, "\n%*s", (int)indent, "");
            col = indent;
        }
        fwrite(p, 1, w, t->out);
        col += w;
        p += w;
        line_start = false;
    }
    fputc('\n', t->out);
}

static const char *pcie_gen(double gts)
{
    if (gts >= 63) return "PCIe 6.0";
    if (gts >= 31) return "PCIe 5.0";
    if (gts >= 15) return "PCIe 4.0";
    if (gts >= 7.9) return "PCIe 3.0";
    if (gts >= 4.9) return "PCIe 2.0";
    if (gts >= 2.4) return "PCIe 1.0";
    return NULL;
}

static void print_gpu(const term *t, const rd_gpu *g)
{
    fprintf(t->out, "  %s%s%s  %s\n", c(t, BOLD), g->pci->address, c(t, RESET), g->name);
    strbuf b = { 0 };
    strbuf_printf(&b, "%s%s", g->gfx[0] ? g->gfx : "gfx unknown", g->gfx[0] && !g->gfx_from_kfd ? " (from PCI id)" : "");
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
    wrap(t, b.s, 16, 16);
    free(b.s);
    const rd_pci_device *l = g->link;
    if (!g->integrated && l->max_link_width > 0) {
        const char *gen = pcie_gen(l->max_link_speed);
        fprintf(t->out, "%16s%s%sx%" PRId64 ", now %.1f GT/s x%" PRId64 "\n", "", gen ? gen : "link", " ",
                l->max_link_width, l->current_link_speed, l->current_link_width);
    }
}

void rd_report_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color)
{
    term t = { out, color };
    strbuf h = { 0 };
    strbuf_printf(&h, "rocm-doctor %s: %s, kernel %s", PACKAGE_VERSION,
                  f->os.pretty_name ? f->os.pretty_name : f->os.id ? f->os.id : "unknown OS",
                  f->os.kernel_release ? f->os.kernel_release : "unknown");
    if (f->os.container)
        strbuf_printf(&h, ", %s container", f->os.container);
    else if (f->os.virtualization)
        strbuf_printf(&h, ", %s VM", f->os.virtualization);
    if (f->root && !streq(f->root, "/"))
        strbuf_printf(&h, ", root %s", f->root);
    wrap(&t, h.s, 0, 2);
    free(h.s);

    if (v->n_gpus > 0) {
        fprintf(out, "\n%sGPUs%s\n", c(&t, BOLD), c(&t, RESET));
        for (size_t i = 0; i < v->n_gpus; i++)
            print_gpu(&t, &v->gpus[i]), rd_report_health_line(out, f, &v->gpus[i]);
    }
    if (f->runtime.ran) {
        fputc('\n', out);
        rd_report_runtime_table(out, f, v, color);
    }

    size_t counts[4] = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        counts[fs->items[i].severity]++;

    if (fs->n > 0)
        fprintf(out, "\n%s%s%s\n", c(&t, BOLD), counts[RD_SEV_ERROR] + counts[RD_SEV_WARNING] ? "Problems" : "Notes",
                c(&t, RESET));
    for (size_t i = 0; i < fs->n; i++) {
        const rd_finding *fd = &fs->items[i];
        if (i > 0)
            fputc('\n', out);
        const char *mark = fd->severity == RD_SEV_ERROR     ? "✗"
                           : fd->severity == RD_SEV_WARNING ? "!"
                           : fd->severity == RD_SEV_OK      ? "✓"
                                                            : "i";
        const char *col = fd->severity == RD_SEV_ERROR     ? RED
                          : fd->severity == RD_SEV_WARNING ? YELLOW
                          : fd->severity == RD_SEV_OK      ? GREEN
                                                           : BLUE;
        fprintf(out, "%s%s%s ", c(&t, col), mark, c(&t, RESET));
        _cleanup_free_ char *head = xasprintf("%s [%s]", fd->summary, fd->id);
        wrap(&t, head, 2, 2);
        for (size_t k = 0; fd->evidence && fd->evidence[k]; k++) {
            fprintf(out, "    %s", c(&t, DIM));
            wrap(&t, fd->evidence[k], 4, 6);
            fputs(c(&t, RESET), out);
        }
        if (fd->remedy) {
            fprintf(out, "  %sFix:%s ", c(&t, BOLD), c(&t, RESET));
            wrap(&t, fd->remedy, 7, 7);
        }
    }
    if (f->access.not_checked && v->n_gpus > 0) {
        fputc('\n', out);
        wrap(&t, f->access.not_checked, 0, 0);
    }

    fputc('\n', out);
    int status = rd_findings_exit_status(fs);
    size_t computed = 0;
    for (size_t i = 0; i < fs->n; i++)
        computed += streq(fs->items[i].id, "runtime.kernel-ok");
    if (v->n_gpus > 0 && status == RD_EXIT_OK && computed > 0) {
        _cleanup_free_ char *line = xasprintf("ROCm's hardware, driver and access checks pass for %zu GPU%s, and "
                                              "a kernel computes correctly on %zu.",
                                              v->n_gpus, v->n_gpus == 1 ? "" : "s", computed);
        fprintf(out, "%s✓%s ", c(&t, GREEN), c(&t, RESET));
        wrap(&t, line, 2, 2);
    } else if (v->n_gpus > 0 && status == RD_EXIT_OK)
        fprintf(out, "%s✓%s ROCm's hardware, driver and access checks pass for %zu GPU%s.\n", c(&t, GREEN),
                c(&t, RESET), v->n_gpus, v->n_gpus == 1 ? "" : "s");
    else
        fprintf(out, "%zu error%s, %zu warning%s.\n", counts[RD_SEV_ERROR], counts[RD_SEV_ERROR] == 1 ? "" : "s",
                counts[RD_SEV_WARNING], counts[RD_SEV_WARNING] == 1 ? "" : "s");
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

/* Prints s left-aligned in width columns (UTF-8 aware), at least one space after. */
static void cell(FILE *out, const char *s, size_t width)
{
    size_t cols = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        cols += (*p & 0xc0) != 0x80;
    fputs(s, out);
    fprintf(out, "%*s", (int)(cols < width ? width - cols : 1), "");
}

static const char *device_state(const rd_runtime_facts *rt, const rd_runtime_device *d)
{
    bool at_it = rt->child_stage && rt->child_stage_device == d->index;
    if (at_it && streq_ptr(rt->child_status, "timeout"))
        return "HUNG";
    if (at_it && streq_ptr(rt->child_status, "signal"))
        return strstr(rt->child_stage, "hiprtc") && d->result ? (streq(d->result, "ok") ? "ok" : d->result)
                                                              : "CRASHED";
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

void rd_report_runtime_table(FILE *out, const rd_facts *f, const rd_gpu_view *v, bool color)
{
    term t = { out, color };
    const rd_runtime_facts *rt = &f->runtime;
    char ver[32];
    strbuf h = { 0 };
    fprintf(out, "%sRuntime (level 2)%s\n", c(&t, BOLD), c(&t, RESET));
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
    fputs("  ", out);
    wrap(&t, h.s, 2, 4);
    free(h.s);

    if (rt->n_devices == 0) {
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
                          strempty(rt->hip_device_count_status_name),
                          rt->hip_device_count < 0 ? 0 : rt->hip_device_count);
        else
            strbuf_append(&b, "no GPU tested: the runtime is not installed");
        fputs("  ", out);
        wrap(&t, b.s, 2, 4);
        free(b.s);
        return;
    }
    fprintf(out, "  %s", c(&t, DIM));
    cell(out, "GPU", 14), cell(out, "gfx", 9), cell(out, "kernel", 14), cell(out, "launch", 10);
    cell(out, "host→dev", 11), cell(out, "dev→host", 11);
    fprintf(out, "hiprtc%s\n", c(&t, RESET));
    for (size_t i = 0; i < rt->n_devices; i++) {
        const rd_runtime_device *d = &rt->devices[i];
        const char *state = device_state(rt, d);
        bool good = streq(state, "ok");
        char buf[32];
        fputs("  ", out);
        cell(out, d->pci_address ? d->pci_address : "?", 14);
        cell(out, d->gfx ? d->gfx : "?", 9);
        fputs(c(&t, good ? GREEN : streq(state, "no kernel") ? BLUE : RED), out);
        cell(out, state, 14);
        fputs(c(&t, RESET), out);
        if (good && d->launch_latency_us > 0) {
            snprintf(buf, sizeof buf, "%.1f µs", d->launch_latency_us);
            cell(out, buf, 10);
            snprintf(buf, sizeof buf, "%.1f GB/s", d->h2d_gbps);
            cell(out, buf, 11);
            snprintf(buf, sizeof buf, "%.1f GB/s", d->d2h_gbps);
            cell(out, buf, 11);
        } else
            cell(out, "-", 10), cell(out, "-", 11), cell(out, "-", 11);
        fprintf(out, "%s\n", hiprtc_state(rt, d));
    }
    /* GPUs the static checks found that HIP did not offer */
    for (size_t i = 0; i < v->n_gpus; i++) {
        const rd_gpu *g = &v->gpus[i];
        bool seen = false;
        for (size_t k = 0; k < rt->n_devices; k++)
            seen |= streq_ptr(rt->devices[k].pci_address, g->pci->address);
        if (seen)
            continue;
        fputs("  ", out);
        cell(out, g->pci->address, 14);
        cell(out, g->gfx[0] ? g->gfx : "?", 9);
        fprintf(out, "%snot offered by HIP%s\n", c(&t, YELLOW), c(&t, RESET));
    }
}

void rd_report_verify_text(FILE *out, const rd_facts *f, const rd_gpu_view *v, const rd_findings *fs, bool color)
{
    term t = { out, color };
    fprintf(out, "rocm-doctor %s verify: %s, kernel %s\n\n", PACKAGE_VERSION,
            f->os.pretty_name ? f->os.pretty_name : f->os.id ? f->os.id : "unknown OS",
            f->os.kernel_release ? f->os.kernel_release : "unknown");
    rd_report_runtime_table(out, f, v, color);

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
        const char *mark = fd->severity == RD_SEV_ERROR ? "✗" : fd->severity == RD_SEV_WARNING ? "!" : "i";
        const char *col = fd->severity == RD_SEV_ERROR ? RED : fd->severity == RD_SEV_WARNING ? YELLOW : BLUE;
        fprintf(out, "%s%s%s ", c(&t, col), mark, c(&t, RESET));
        _cleanup_free_ char *head = xasprintf("%s [%s]", fd->summary, fd->id);
        wrap(&t, head, 2, 2);
        for (size_t k = 0; fd->evidence && fd->evidence[k]; k++) {
            fprintf(out, "    %s", c(&t, DIM));
            wrap(&t, fd->evidence[k], 4, 6);
            fputs(c(&t, RESET), out);
        }
        if (fd->remedy) {
            fprintf(out, "  %sFix:%s ", c(&t, BOLD), c(&t, RESET));
            wrap(&t, fd->remedy, 7, 7);
        }
        shown++;
    }
    fputc('\n', out);
    size_t ok = 0;
    for (size_t i = 0; i < fs->n; i++)
        ok += streq(fs->items[i].id, "runtime.kernel-ok");
    if (f->runtime.n_devices == 0)
        fprintf(out, "No GPU was tested.\n");
    else if (ok > 0 && shown == 0)
        fprintf(out, "%s✓%s The kernel computes correctly on %zu GPU%s.\n", c(&t, GREEN), c(&t, RESET), ok,
                ok == 1 ? "" : "s");
    else
        fprintf(out, "%zu of %zu GPU%s computed correctly.\n", ok, f->runtime.n_devices,
                f->runtime.n_devices == 1 ? "" : "s");
    if (other > 0)
        fprintf(out, "The static checks found %zu other problem%s: see rocm-doctor check.\n", other,
                other == 1 ? "" : "s");
}
