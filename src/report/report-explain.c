/* SPDX-License-Identifier: MIT */
/* explain's output: for each message recognised, its title, what it means
 * and the causes that apply on this host (or which causes were checked and
 * found absent), as text and as JSON. */
#include <stdio.h>
#include "build-config.h"
#include "report-explain.h"
#include "json-util.h"
#include "report.h"
#include "util.h"
#include "catalogue.h"

/* gpu.none picked as a cause: no AMD GPU is visible here, so whatever the
 * message says, it came from no GPU of this host (a log from another
 * machine). Said after that finding's remedy, in explain only. */
#define NOT_FROM_HERE " A message about an AMD GPU (amdgpu, KFD, HIP, HSA) cannot have come from this host's GPU."

/* The remedy explain shows for f picked as a cause, when it is not f's own:
 * gpu.none's, followed by NOT_FROM_HERE. NULL for any other finding. */
static char *cause_remedy(const rd_finding *f)
{
    if (!streq(f->id, RD_FINDING(GPU_NONE)) || !f->remedy)
        return NULL;
    return xasprintf("%s%s", f->remedy, NOT_FROM_HERE);
}

static char *join_ids(char *const *ids, size_t n)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "%s%s", i ? ", " : "", ids[i]);
    return strbuf_steal(&b);
}

/* The causes of e that this version checks at this level, and those it
 * does not. */
static void split_causes(const rd_probe_table *probes, const rd_error_entry *e, int level, char ***ret_checked,
                         size_t *n_checked, char ***ret_unchecked, size_t *n_unchecked)
{
    char **yes = NULL, **no = NULL;
    *n_checked = *n_unchecked = 0;
    for (size_t i = 0; e->causes[i]; i++) {
        if (rd_probe_table_can_check(probes, e->causes[i], level)) {
            yes = strv_push(yes, e->causes[i]);
            (*n_checked)++;
        } else {
            no = strv_push(no, e->causes[i]);
            (*n_unchecked)++;
        }
    }
    *ret_checked = yes;
    *ret_unchecked = no;
}

static void print_ids(const rd_term *t, const char *label, char *const *ids, size_t n)
{
    if (n == 0)
        return;
    _cleanup_free_ char *list = join_ids(ids, n);
    _cleanup_free_ char *line = xasprintf("%s: %s.", label, list);
    fputs("    ", t->out);
    rd_term_wrap(t, line, 4, 6);
}

static bool seen_before(const rd_finding *const *seen, size_t n, const rd_finding *f)
{
    for (size_t i = 0; i < n; i++)
        if (seen[i] == f)
            return true;
    return false;
}

/* No cause of e applies: which of them were checked, which only a level-2
 * run checks, and which none. */
static void print_no_cause(const rd_term *t, const rd_run *run, const rd_error_entry *e)
{
    _cleanup_free_ char **yes = NULL, **no = NULL;
    size_t ny, nn;
    split_causes(run->probes, e, run->level, &yes, &ny, &no, &nn);
    fputs("\n  ", t->out);
    rd_report_mark(t, ny > 0 ? RD_SEV_OK : RD_SEV_INFO);
    fputs(ny > 0 ? "None of its known causes applies on this host.\n"
                 : "This version has no check for its causes yet.\n",
          t->out);
    print_ids(t, "Checked", yes, ny);
    /* the unchecked causes: those a level-2 run would check, and the rest */
    _cleanup_free_ char **l2 = NULL, **none = NULL;
    size_t n2 = 0, n0 = 0;
    for (size_t k = 0; k < nn; k++) {
        if (rd_probe_table_can_check(run->probes, no[k], 2)) {
            l2 = strv_push(l2, no[k]);
            n2++;
        } else {
            none = strv_push(none, no[k]);
            n0++;
        }
    }
    print_ids(t, "Checked only with --level 2", l2, n2);
    print_ids(t, "Not checked by this version", none, n0);
}

/* One recognised message. A cause shown under an earlier message is only
 * named again ("see above"); *shown collects those shown in full. Returns
 * the exit status of its causes. */
static int print_match(const rd_term *t, const rd_run *run, const rd_error_match *match, const rd_finding ***shown,
                       size_t *n_shown)
{
    const rd_error_entry *e = match->entry;
    _cleanup_free_ char *head =
        streq(match->how, e->title) ? xstrdup(e->title) : xasprintf("%s (recognised by \"%s\")", e->title, match->how);
    rd_term_wrap_color(t, RD_COLOR_BOLD, head, 0, 2);
    fputs("  ", t->out);
    rd_term_wrap(t, e->meaning, 2, 2);

    _cleanup_free_ const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &run->findings, &picked);
    if (n == 0) {
        print_no_cause(t, run, e);
        return rd_explain_exit_status(picked, n);
    }
    fprintf(t->out, "\n  %s%s:%s\n", rd_term_color(t, RD_COLOR_BOLD),
            n == 1 ? "The cause on this host" : "Causes on this host, most likely first",
            rd_term_color(t, RD_COLOR_RESET));
    for (size_t k = 0; k < n; k++) {
        bool see_above = seen_before(*shown, *n_shown, picked[k]);
        _cleanup_free_ char *remedy = cause_remedy(picked[k]);
        rd_finding f = *picked[k];
        if (remedy)
            f.remedy = remedy;
        rd_report_finding_text(t, &f, 2, see_above);
        if (!see_above)
            *ARRAY_APPEND(*shown, *n_shown) = picked[k];
    }
    return rd_explain_exit_status(picked, n);
}

void rd_report_explain_text(FILE *out, bool color, const rd_run *run, const rd_error_matches *m, int *ret_status)
{
    if (m->n == 0) {
        fputs("rocm-doctor does not know this message. The whole check of this host:\n\n", out);
        rd_report_text(out, &run->facts, &run->view, &run->findings, color);
        *ret_status = rd_findings_exit_status(&run->findings);
        return;
    }
    rd_term t;
    rd_term_init(&t, out, color);
    const rd_finding **shown = NULL;
    size_t n_shown = 0;
    int status = RD_EXIT_OK;
    for (size_t i = 0; i < m->n; i++) {
        if (i > 0)
            fputc('\n', out);
        int s = print_match(&t, run, &m->items[i], &shown, &n_shown);
        if (s > status)
            status = s;
    }
    free(shown);
    *ret_status = status;
}

static const char *status_name(int status)
{
    return status == RD_EXIT_ERROR ? "error" : status == RD_EXIT_WARNING ? "warning" : "ok";
}

/* One recognised message; the causes that apply are added to *all once.
 * Returns the exit status of its causes. */
static int add_match_json(json_object *errors, const rd_run *run, const rd_error_match *match, const rd_finding ***all,
                          size_t *n_all)
{
    const rd_error_entry *e = match->entry;
    json_object *o = json_object_new_object();
    rd_json_set_str(o, "id", e->id);
    rd_json_set_str(o, "title", e->title);
    rd_json_set_str(o, "matched", match->how);
    rd_json_set_str(o, "meaning", e->meaning);
    rd_json_add(o, "causes", rd_json_strv(e->causes));
    _cleanup_free_ char **yes = NULL, **no = NULL;
    size_t ny, nn;
    split_causes(run->probes, e, run->level, &yes, &ny, &no, &nn);
    rd_json_add(o, "checked", rd_json_strv(yes));
    rd_json_add(o, "not_checked", rd_json_strv(no));
    _cleanup_free_ const rd_finding **picked = NULL;
    size_t n = rd_explain_pick(e, &run->findings, &picked);
    json_object *applying = json_object_new_array();
    for (size_t k = 0; k < n; k++) {
        if (!seen_before(*all, *n_all, picked[k])) {
            json_object_array_add(applying, json_object_new_string(picked[k]->id));
            *ARRAY_APPEND(*all, *n_all) = picked[k];
        } else if (!seen_before(picked, k, picked[k]))
            json_object_array_add(applying, json_object_new_string(picked[k]->id));
    }
    rd_json_add(o, "applying", applying);
    json_object_array_add(errors, o);
    return rd_explain_exit_status(picked, n);
}

static json_object *cause_json(const rd_finding *f)
{
    json_object *j = rd_finding_to_json(f);
    _cleanup_free_ char *remedy = cause_remedy(f);
    if (remedy)
        rd_json_set_str(j, "remedy", remedy);
    return j;
}

json_object *rd_report_explain_json(const rd_run *run, const rd_error_table *t, const char *text,
                                    const rd_error_matches *m, int *ret_status)
{
    json_object *root = json_object_new_object();
    rd_json_set_str(root, "schema", RD_EXPLAIN_SCHEMA);
    rd_json_set_str(root, "version", PACKAGE_VERSION);
    json_object *tab = json_object_new_object();
    rd_json_set_str(tab, "version", t->info.version);
    rd_json_set_str(tab, "date", t->info.date);
    rd_json_add(root, "table", tab);
    rd_json_set_str(root, "text", text);
    rd_json_set_bool(root, "known", m->n > 0);
    rd_json_set_int(root, "level", run->level);

    const rd_finding **all = NULL;
    size_t n_all = 0;
    int status = RD_EXIT_OK;
    json_object *errors = json_object_new_array();
    for (size_t i = 0; i < m->n; i++) {
        int s = add_match_json(errors, run, &m->items[i], &all, &n_all);
        if (s > status)
            status = s;
    }
    rd_json_add(root, "errors", errors);
    json_object *findings = json_object_new_array();
    for (size_t i = 0; i < n_all; i++)
        json_object_array_add(findings, cause_json(all[i]));
    free(all);
    rd_json_add(root, "findings", findings);
    if (m->n == 0) {
        status = rd_findings_exit_status(&run->findings);
        rd_json_add(root, "report", rd_report_json(&run->facts, &run->view, &run->findings, run->level));
    } else
        rd_json_add(root, "report", NULL);
    rd_json_set_str(root, "status", status_name(status));
    rd_json_set_int(root, "exit_status", status);
    *ret_status = status;
    return root;
}
