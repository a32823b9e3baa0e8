/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <inttypes.h>
#include "build-config.h"
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

void rd_format_bytes(uint64_t b, char *buf, size_t size)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
        v /= 1024;
        u++;
    }
    if (v >= 10 || v == (double)(uint64_t)v)
        snprintf(buf, size, "%.0f %s", v, units[u]);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
}

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
            print_gpu(&t, &v->gpus[i]);
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
    }
    if (f->access.not_checked && v->n_gpus > 0) {
        fputc('\n', out);
        wrap(&t, f->access.not_checked, 0, 0);
    }

    fputc('\n', out);
    int status = rd_findings_exit_status(fs);
    if (v->n_gpus > 0 && status == RD_EXIT_OK)
        fprintf(out, "%s✓%s ROCm's hardware, driver and access checks pass for %zu GPU%s.\n", c(&t, GREEN),
                c(&t, RESET), v->n_gpus, v->n_gpus == 1 ? "" : "s");
    else
        fprintf(out, "%zu error%s, %zu warning%s.\n", counts[RD_SEV_ERROR], counts[RD_SEV_ERROR] == 1 ? "" : "s",
                counts[RD_SEV_WARNING], counts[RD_SEV_WARNING] == 1 ? "" : "s");
}
