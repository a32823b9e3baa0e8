/* SPDX-License-Identifier: MIT */
/* explain: an error message in, what it means and which of its causes
 * applies on this host out. The diagnosis is the full check (so --root,
 * --user, --facts and --config work as for check); explain keeps the
 * findings the errors table names as causes. This file reads the message
 * and runs the check; src/report/report-explain.c renders the answer. */
#include <stdio.h>
#include "cli.h"
#include "explain.h"
#include "report-explain.h"
#include "run.h"
#include "util.h"

#define MAX_TEXT (16 * 1024 * 1024)

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
        /* a repository URL the message names is judged by the table itself */
        rd_explain_message_urls(&run.ctx.knowledge, run.config.mirror, text, &run.findings);
        int status = RD_EXIT_OK;
        if (o->format == RD_FORMAT_JSON) {
            if (rd_cli_print_json(rd_report_explain_json(&run, &table, strstrip(text), &m, &status)) < 0)
                status = rd_fail("cannot write to standard output");
        } else {
            rd_report_explain_text(stdout, rd_cli_want_color(o->color), &run, &m, &status);
            if (fflush(stdout) != 0 || ferror(stdout))
                status = rd_fail("cannot write to standard output");
        }
        r = status;
    }
    rd_run_free(&run);
    rd_error_matches_free(&m);
    rd_error_table_free(&table);
    return r;
}
