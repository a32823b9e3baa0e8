/* SPDX-License-Identifier: MIT */
/* explain: an error message in, what it means and which of its causes
 * applies on this host out. The diagnosis is the full check (so --root,
 * --user, --facts and --config work as for check); explain keeps the
 * findings the errors table names as causes. */
#include <stdio.h>
#include "build-config.h"
#include "cli.h"
#include "explain.h"
#include "json-util.h"
#include "registry.h"
#include "report.h"
#include "run.h"
#include "util.h"

#define EXPLAIN_SCHEMA "rocm-doctor-explain/1"
#define MAX_TEXT (16 * 1024 * 1024)

static char *join_ids(char *const *ids, size_t n)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "%s%s", i ? ", " : "", ids[i]);
    return strbuf_steal(&b);
}

/* The causes of e that this version checks at this level, and those it
 * does not. */
static void split_causes(const rd_error_entry *e, int level, char ***ret_checked, size_t *n_checked,
                         char ***ret_unchecked, size_t *n_unchecked)
{
    char **yes = NULL, **no = NULL;
    *n_checked = *n_unchecked = 0;
    for (size_t i = 0; e->causes[i]; i++) {
        if (rd_probe_table_can_check(&rd_probe_registry, e->causes[i], level)) {
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

static int render_text(const rd_options *opt, const rd_run *run, const rd_error_matches *m, int *ret_status)
{
    rd_term o;
    rd_term_init(&o, stdout, rd_cli_want_color(opt->color));
    const rd_finding **shown = NULL;
    size_t n_shown = 0;
    int status = RD_EXIT_OK;

    for (size_t i = 0; i < m->n; i++) {
        const rd_error_entry *e = m->items[i].entry;
        if (i > 0)
            fputc('\n', o.out);
        _cleanup_free_ char *head = streq(m->items[i].how, e->title)
                                        ? xstrdup(e->title)
                                        : xasprintf("%s (recognised by \"%s\")", e->title, m->items[i].how);
        rd_term_wrap_color(&o, RD_COLOR_BOLD, head, 0, 2);
        fputs("  ", o.out);
        rd_term_wrap(&o, e->meaning, 2, 2);

        _cleanup_free_ const rd_finding **picked = NULL;
        size_t n = rd_explain_pick(e, &run->findings, &picked);
        int s = rd_explain_exit_status(picked, n);
        if (s > status)
            status = s;
        if (n > 0) {
            fprintf(o.out, "\n  %s%s:%s\n", rd_term_color(&o, RD_COLOR_BOLD),
                    n == 1 ? "The cause on this host" : "Causes on this host, most likely first",
                    rd_term_color(&o, RD_COLOR_RESET));
            for (size_t k = 0; k < n; k++) {
                rd_report_finding_text(&o, picked[k], 2, seen_before(shown, n_shown, picked[k]));
                if (!seen_before(shown, n_shown, picked[k]))
                    *ARRAY_APPEND(shown, n_shown) = picked[k];
            }
        } else {
            _cleanup_free_ char **yes = NULL, **no = NULL;
            size_t ny, nn;
            split_causes(e, run->level, &yes, &ny, &no, &nn);
            fputs("\n  ", o.out);
            rd_report_mark(&o, ny > 0 ? RD_SEV_OK : RD_SEV_INFO);
            fputs(ny > 0 ? "None of its known causes applies on this host.\n"
                         : "This version has no check for its causes yet.\n",
                  o.out);
            print_ids(&o, "Checked", yes, ny);
            /* the unchecked causes: those a level-2 run would check, and the rest */
            _cleanup_free_ char **l2 = NULL, **none = NULL;
            size_t n2 = 0, n0 = 0;
            for (size_t k = 0; k < nn; k++) {
                if (rd_probe_table_can_check(&rd_probe_registry, no[k], 2)) {
                    l2 = strv_push(l2, no[k]);
                    n2++;
                } else {
                    none = strv_push(none, no[k]);
                    n0++;
                }
            }
            print_ids(&o, "Checked only with --level 2", l2, n2);
            print_ids(&o, "Not checked by this version", none, n0);
        }
    }
    free(shown);
    if (fflush(stdout) != 0 || ferror(stdout))
        return -EIO;
    *ret_status = status;
    return 0;
}

static const char *status_name(int status)
{
    return status == RD_EXIT_ERROR ? "error" : status == RD_EXIT_WARNING ? "warning" : "ok";
}

static json_object *explain_json(const rd_run *run, const rd_error_table *t, const char *text,
                                 const rd_error_matches *m, int *ret_status)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "schema", json_object_new_string(EXPLAIN_SCHEMA));
    json_object_object_add(root, "version", json_object_new_string(PACKAGE_VERSION));
    json_object *tab = json_object_new_object();
    json_object_object_add(tab, "version", json_object_new_string(t->info.version));
    json_object_object_add(tab, "date", json_object_new_string(t->info.date));
    json_object_object_add(root, "table", tab);
    json_object_object_add(root, "text", json_object_new_string(text));
    json_object_object_add(root, "known", json_object_new_boolean(m->n > 0));
    json_object_object_add(root, "level", json_object_new_int(run->level));

    const rd_finding **all = NULL;
    size_t n_all = 0;
    int status = RD_EXIT_OK;
    json_object *errors = json_object_new_array();
    for (size_t i = 0; i < m->n; i++) {
        const rd_error_entry *e = m->items[i].entry;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "id", json_object_new_string(e->id));
        json_object_object_add(o, "title", json_object_new_string(e->title));
        json_object_object_add(o, "matched", json_object_new_string(m->items[i].how));
        json_object_object_add(o, "meaning", json_object_new_string(e->meaning));
        json_object_object_add(o, "causes", rd_json_strv(e->causes));
        _cleanup_free_ char **yes = NULL, **no = NULL;
        size_t ny, nn;
        split_causes(e, run->level, &yes, &ny, &no, &nn);
        json_object_object_add(o, "checked", rd_json_strv(yes));
        json_object_object_add(o, "not_checked", rd_json_strv(no));
        _cleanup_free_ const rd_finding **picked = NULL;
        size_t n = rd_explain_pick(e, &run->findings, &picked);
        json_object *applying = json_object_new_array();
        for (size_t k = 0; k < n; k++) {
            if (!seen_before(all, n_all, picked[k])) {
                json_object_array_add(applying, json_object_new_string(picked[k]->id));
                *ARRAY_APPEND(all, n_all) = picked[k];
            } else if (!seen_before(picked, k, picked[k]))
                json_object_array_add(applying, json_object_new_string(picked[k]->id));
        }
        json_object_object_add(o, "applying", applying);
        int s = rd_explain_exit_status(picked, n);
        if (s > status)
            status = s;
        json_object_array_add(errors, o);
    }
    json_object_object_add(root, "errors", errors);
    json_object *findings = json_object_new_array();
    for (size_t i = 0; i < n_all; i++)
        json_object_array_add(findings, rd_finding_to_json(all[i]));
    free(all);
    json_object_object_add(root, "findings", findings);
    if (m->n == 0) {
        status = rd_findings_exit_status(&run->findings);
        json_object_object_add(root, "report", rd_report_json(&run->facts, &run->view, &run->findings, run->level));
    } else
        json_object_object_add(root, "report", NULL);
    json_object_object_add(root, "status", json_object_new_string(status_name(status)));
    json_object_object_add(root, "exit_status", json_object_new_int(status));
    *ret_status = status;
    return root;
}

static int read_text(char **args, size_t n_args, char **ret)
{
    if (n_args == 1 && streq(args[0], "-")) {
        char *s = NULL;
        size_t size;
        int r = read_fd(STDIN_FILENO, MAX_TEXT, &s, &size);
        if (r == -EFBIG)
            return rd_usage_error("the message on standard input is longer than %d bytes", MAX_TEXT);
        if (r < 0)
            return rd_fail("cannot read standard input: %s", errno_name(-r));
        if (strlen(s) != size) {
            free(s);
            return rd_usage_error("%s", "the message on standard input contains a NUL byte");
        }
        *ret = s;
        return 0;
    }
    strbuf b = { 0 };
    for (size_t i = 0; i < n_args; i++) {
        strbuf_printf(&b, "%s%s", i ? " " : "", args[i]);
        if (b.len > MAX_TEXT) {
            free(b.s);
            return rd_usage_error("the message is longer than %d bytes", MAX_TEXT);
        }
    }
    *ret = b.s ? strbuf_steal(&b) : xstrdup("");
    return 0;
}

int rd_verb_explain(const rd_options *o, char **args, size_t n_args)
{
    int r;
    if (o->format_set && o->format != RD_FORMAT_TEXT && o->format != RD_FORMAT_JSON)
        return rd_usage_error("%s", "explain prints text or JSON (--json)");
    if (n_args == 0)
        return rd_usage_error("%s", "explain needs the error message, e.g. rocm-doctor explain hipErrorNoDevice "
                                    "(or - to read it from standard input)");
    _cleanup_free_ char *text = NULL;
    if ((r = read_text(args, n_args, &text)) != 0)
        return r;
    _cleanup_free_ char *norm = rd_error_normalize(text);
    if (!*norm)
        return rd_usage_error("%s", "the error message to explain is empty");

    _cleanup_free_ char *path = xasprintf("%s/errors.ini", rd_data_dir());
    _cleanup_free_ char *err = NULL;
    rd_error_table table;
    if (rd_error_table_load(path, NULL, &table, &err) < 0)
        return rd_fail("%s", err);
    rd_error_matches m;
    rd_error_match_text(&table, text, &m);

    rd_run run;
    r = rd_cli_run_check(o, &run);
    if (r == 0) {
        int status = RD_EXIT_OK;
        if (o->format == RD_FORMAT_JSON) {
            if (rd_cli_print_json(explain_json(&run, &table, strstrip(text), &m, &status)) < 0)
                status = rd_fail("cannot write to standard output");
        } else if (m.n == 0) {
            fputs("rocm-doctor does not know this message. The whole check of this host:\n\n", stdout);
            rd_options ro = *o;
            ro.format = RD_FORMAT_TEXT;
            status = rd_cli_render(&ro, &run, stdout);
        } else if (render_text(o, &run, &m, &status) < 0)
            status = rd_fail("cannot write to standard output");
        r = status;
    }
    rd_run_free(&run);
    rd_error_matches_free(&m);
    rd_error_table_free(&table);
    return r;
}
