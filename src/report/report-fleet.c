/* SPDX-License-Identifier: MIT */
/* The fleet's outputs (report-fleet.h). */
#include "report-fleet.h"

#include <errno.h>
#include <inttypes.h>
#include "build-config.h"
#include "hostlist.h"
#include "json-util.h"
#include "report.h"
#include "util.h"

int rd_fleet_format_from_name(const char *name)
{
    static const char *const names[] = { "text", "json", "prometheus", "html" };
    for (size_t i = 0; name && i < ELEMENTSOF(names); i++)
        if (streq(name, names[i]))
            return (int)i;
    return -EINVAL;
}

static int finish(FILE *out)
{
    return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------------- */
/* JSON */

static json_object *json_summary(const rd_fleet *fleet, const rd_fleet_analysis *a)
{
    json_object *sum = json_object_new_object();
    rd_json_add(sum, "nodes", rd_json_int((int64_t)fleet->n_nodes));
    rd_json_add(sum, "ok", rd_json_int((int64_t)a->n_status[0]));
    rd_json_add(sum, "warning", rd_json_int((int64_t)a->n_status[1]));
    rd_json_add(sum, "error", rd_json_int((int64_t)a->n_status[2]));
    rd_json_add(sum, "unreachable", rd_json_int((int64_t)a->n_status[3]));
    return sum;
}

/* A node: its name, status, class and finding ids (each once). */
static json_object *json_node(const rd_fleet_node *n)
{
    json_object *j = json_object_new_object();
    rd_json_add(j, "name", json_object_new_string(n->name));
    rd_json_add(j, "status", json_object_new_string(rd_fleet_status_name(n->exit_status)));
    rd_json_add(j, "exit_status", json_object_new_int(n->exit_status));
    rd_json_add(j, "class", rd_json_str_or_null(n->klass));
    json_object *ids = json_object_new_array();
    for (size_t k = 0; k < n->n_findings; k++) {
        bool seen = false;
        for (size_t m = 0; m < k && !seen; m++)
            seen = streq(n->findings[m].id, n->findings[k].id);
        if (!seen)
            json_object_array_add(ids, json_object_new_string(n->findings[k].id));
    }
    rd_json_add(j, "findings", ids);
    return j;
}

static json_object *json_cause(const rd_fleet_cause *c)
{
    json_object *j = json_object_new_object();
    rd_json_add(j, "id", json_object_new_string(c->finding->id));
    rd_json_add(j, "severity", json_object_new_string(rd_severity_name(c->finding->severity)));
    rd_json_add(j, "summary", rd_json_str_or_null(c->finding->summary));
    rd_json_add(j, "remedy", rd_json_str_or_null(c->finding->remedy));
    rd_json_add(j, "fix", rd_json_str_or_null(c->finding->fix));
    _cleanup_free_ char *cmd = rd_fleet_fix_command(c->finding);
    rd_json_add(j, "fix_command", rd_json_str_or_null(cmd));
    rd_json_add(j, "nodes", rd_json_strv(c->nodes));
    rd_json_add(j, "hostlist", json_object_new_string(c->hostlist));
    return j;
}

static json_object *json_drift(const rd_fleet_drift *d)
{
    json_object *j = json_object_new_object();
    rd_json_add(j, "class", json_object_new_string(d->klass));
    rd_json_add(j, "property", json_object_new_string(d->property));
    rd_json_add(j, "majority", json_object_new_string(d->majority));
    rd_json_add(j, "majority_nodes", rd_json_int((int64_t)d->n_majority));
    json_object *outliers = json_object_new_array();
    for (size_t k = 0; k < d->n_outliers; k++) {
        json_object *x = json_object_new_object();
        rd_json_add(x, "node", json_object_new_string(d->outliers[k].node));
        rd_json_add(x, "value", json_object_new_string(d->outliers[k].value));
        json_object_array_add(outliers, x);
    }
    rd_json_add(j, "outliers", outliers);
    return j;
}

json_object *rd_report_fleet_json(const rd_fleet *fleet, const rd_fleet_analysis *a)
{
    json_object *o = json_object_new_object();
    rd_json_add(o, "schema", json_object_new_string(RD_FLEET_SCHEMA));
    rd_json_add(o, "version", json_object_new_string(PACKAGE_VERSION));
    rd_json_add(o, "exit_status", json_object_new_int(a->exit_status));
    rd_json_add(o, "summary", json_summary(fleet, a));

    json_object *nodes = rd_json_new_array(fleet->n_nodes);
    json_object *unreachable = json_object_new_array();
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        const rd_fleet_node *n = &fleet->nodes[i];
        json_object_array_add(nodes, json_node(n));
        if (n->unreachable) {
            json_object *u = json_object_new_object();
            rd_json_add(u, "node", json_object_new_string(n->name));
            rd_json_add(u, "reason", json_object_new_string(n->unreachable));
            json_object_array_add(unreachable, u);
        }
    }
    rd_json_add(o, "nodes", nodes);

    json_object *causes = json_object_new_array();
    for (size_t i = 0; i < a->n_causes; i++)
        json_object_array_add(causes, json_cause(&a->causes[i]));
    rd_json_add(o, "causes", causes);

    json_object *drift = json_object_new_array();
    for (size_t i = 0; i < a->n_drift; i++)
        json_object_array_add(drift, json_drift(&a->drift[i]));
    rd_json_add(o, "drift", drift);
    rd_json_add(o, "unreachable", unreachable);
    return o;
}

/* ---------------------------------------------------------------------- */
/* Text */

/* The names of the nodes for which keep(node) holds, as a host list. */
static char *hostlist_of(const rd_fleet *fleet, bool (*keep)(const rd_fleet_node *))
{
    char **names = NULL;
    size_t n = 0;
    for (size_t i = 0; i < fleet->n_nodes; i++)
        if (keep(&fleet->nodes[i]))
            names = strv_push_n(names, &n, xstrdup(fleet->nodes[i].name));
    char *h = rd_hostlist_compress(names);
    strv_free(names);
    return h;
}

static bool is_unreachable(const rd_fleet_node *n)
{
    return n->unreachable != NULL;
}

static const char *drift_outlier_list(const rd_fleet_drift *d, strbuf *b)
{
    for (size_t k = 0; k < d->n_outliers; k++)
        strbuf_printf(b, "%s%s: %s", k ? ", " : "", d->outliers[k].node, d->outliers[k].value);
    return b->s ? b->s : "";
}

int rd_report_fleet_text(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a, bool color)
{
    rd_term t;
    rd_term_init(&t, out, color);
    const char *bold = rd_term_color(&t, RD_COLOR_BOLD), *reset = rd_term_color(&t, RD_COLOR_RESET);
    fprintf(out, "%s%zu node%s: %zu healthy", bold, fleet->n_nodes, fleet->n_nodes == 1 ? "" : "s", a->n_status[0]);
    if (a->n_status[1])
        fprintf(out, ", %zu with warnings", a->n_status[1]);
    if (a->n_status[2])
        fprintf(out, ", %zu with errors", a->n_status[2]);
    if (a->n_status[3])
        fprintf(out, ", %zu not checked", a->n_status[3]);
    fprintf(out, "%s\n", reset);

    /* warnings and errors in full; the informational findings in one line
     * after them (a healthy fleet is the summary line alone) */
    size_t n_serious = 0;
    while (n_serious < a->n_causes && a->causes[n_serious].finding->severity >= RD_SEV_WARNING)
        n_serious++;
    if (n_serious)
        fprintf(out, "\n%sCauses%s\n", bold, reset);
    for (size_t i = 0; i < n_serious; i++) {
        const rd_fleet_cause *c = &a->causes[i];
        rd_report_mark(&t, c->finding->severity);
        _cleanup_free_ char *head = xasprintf("%s [%s], %zu node%s", c->finding->summary ? c->finding->summary : "",
                                              c->finding->id, c->n_nodes, c->n_nodes == 1 ? "" : "s");
        rd_term_wrap(&t, head, 2, 4);
        fputs("    nodes: ", out);
        rd_term_wrap(&t, c->hostlist, 11, 6);
        if (c->finding->remedy) {
            fputs("    remedy: ", out);
            rd_term_wrap(&t, c->finding->remedy, 12, 6);
        }
        _cleanup_free_ char *cmd = rd_fleet_fix_command(c->finding);
        if (cmd) {
            _cleanup_free_ char *line = xasprintf("%s (on %s)", cmd, c->hostlist);
            fputs("    fix: ", out);
            rd_term_wrap(&t, line, 9, 6);
        }
    }

    if (n_serious && n_serious < a->n_causes) {
        strbuf b = { 0 };
        for (size_t i = n_serious; i < a->n_causes; i++)
            strbuf_printf(&b, "%s%s (%zu)", i > n_serious ? ", " : "", a->causes[i].finding->id, a->causes[i].n_nodes);
        rd_report_mark(&t, RD_SEV_INFO);
        _cleanup_free_ char *line = xasprintf("also: %s", b.s);
        free(b.s);
        rd_term_wrap(&t, line, 2, 4);
    }

    if (a->n_drift)
        fprintf(out, "\n%sDrift%s (among nodes with the same GPUs)\n", bold, reset);
    for (size_t i = 0; i < a->n_drift; i++) {
        const rd_fleet_drift *d = &a->drift[i];
        rd_report_mark(&t, RD_SEV_WARNING);
        _cleanup_free_ char *head = xasprintf("%s, %s: %s on %zu node%s", d->klass, d->property, d->majority,
                                              d->n_majority, d->n_majority == 1 ? "" : "s");
        rd_term_wrap(&t, head, 2, 4);
        strbuf b = { 0 };
        _cleanup_free_ char *list = xasprintf("but %s", drift_outlier_list(d, &b));
        free(b.s);
        fputs("    ", out);
        rd_term_wrap(&t, list, 4, 6);
    }

    if (a->n_status[3]) {
        _cleanup_free_ char *h = hostlist_of(fleet, is_unreachable);
        fprintf(out, "\n%sNot checked%s: %s\n", bold, reset, h);
        for (size_t i = 0; i < fleet->n_nodes; i++)
            if (fleet->nodes[i].unreachable) {
                _cleanup_free_ char *line = xasprintf("%s: %s", fleet->nodes[i].name, fleet->nodes[i].unreachable);
                rd_report_mark(&t, RD_SEV_ERROR);
                rd_term_wrap(&t, line, 2, 4);
            }
    }
    return finish(out);
}

/* ---------------------------------------------------------------------- */
/* Prometheus */

static void prom_escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '"')
            fputs("\\\"", out);
        else
            fputc(*s, out);
    }
}

static void prom_header(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

int rd_report_fleet_prometheus(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a)
{
    static const char *const states[] = { "ok", "warning", "error", "unreachable" };
    prom_header(out, "rocm_doctor_fleet_nodes", "Nodes by status");
    for (size_t s = 0; s < 4; s++)
        fprintf(out, "rocm_doctor_fleet_nodes{status=\"%s\"} %zu\n", states[s], a->n_status[s]);
    prom_header(out, "rocm_doctor_fleet_node_status",
                "A node's exit status: 0 healthy, 1 warnings, 2 errors, 3 not checked");
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        fputs("rocm_doctor_fleet_node_status{node=\"", out);
        prom_escaped(out, fleet->nodes[i].name);
        fprintf(out, "\"} %d\n", fleet->nodes[i].exit_status);
    }
    prom_header(out, "rocm_doctor_fleet_cause_nodes", "Nodes with a finding, by finding id");
    for (size_t i = 0; i < a->n_causes; i++)
        fprintf(out, "rocm_doctor_fleet_cause_nodes{id=\"%s\",severity=\"%s\"} %zu\n", a->causes[i].finding->id,
                rd_severity_name(a->causes[i].finding->severity), a->causes[i].n_nodes);
    prom_header(out, "rocm_doctor_fleet_drift_outliers", "Nodes whose property differs from their class's majority");
    for (size_t i = 0; i < a->n_drift; i++) {
        fputs("rocm_doctor_fleet_drift_outliers{class=\"", out);
        prom_escaped(out, a->drift[i].klass);
        fputs("\",property=\"", out);
        prom_escaped(out, a->drift[i].property);
        fprintf(out, "\"} %zu\n", a->drift[i].n_outliers);
    }
    prom_header(out, "rocm_doctor_fleet_exit_status",
                "The fleet's exit status: the worst node's, 3 when any was not checked");
    fprintf(out, "rocm_doctor_fleet_exit_status %d\n", a->exit_status);
    return finish(out);
}

/* ---------------------------------------------------------------------- */
/* HTML: one file, inline CSS, no script, no resource from elsewhere. */

static void html_escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static const char html_style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #bbb;padding:.3em .6em;text-align:left;vertical-align:top}"
    "th{background:#eee}code{font-family:monospace}td.fix code{white-space:nowrap}"
    ".sev-error{color:#a00;font-weight:bold}.sev-warning{color:#a60;font-weight:bold}.sev-info{color:#06a}"
    ".grid{display:flex;flex-wrap:wrap;gap:3px;max-width:60em}"
    ".node{display:inline-block;width:6.5em;padding:.2em;font-size:.75em;font-family:monospace;"
    "border:1px solid #888;text-align:center;overflow:hidden}"
    ".ok{background:#bfe6bf}.warning{background:#ffe08a}.error{background:#f3a0a0}"
    ".unreachable{background:#bbb;color:#333}"
    ".legend span{margin-right:1em;padding:0 .4em}";

static void html_cause(FILE *out, const rd_fleet_cause *c)
{
    const char *sev = rd_severity_name(c->finding->severity);
    fprintf(out, "<tr class=\"cause\"><td class=\"sev-%s\">%s</td><td><code>", sev, sev);
    html_escaped(out, c->finding->id);
    fputs("</code><br>", out);
    html_escaped(out, c->finding->summary);
    fprintf(out, "</td><td>%zu</td><td><code>", c->n_nodes);
    html_escaped(out, c->hostlist);
    fputs("</code></td><td>", out);
    html_escaped(out, c->finding->remedy);
    fputs("</td><td class=\"fix\">", out);
    _cleanup_free_ char *cmd = rd_fleet_fix_command(c->finding);
    if (cmd) {
        fputs("<code>", out);
        html_escaped(out, cmd);
        fputs("</code>", out);
    }
    fputs("</td></tr>\n", out);
}

static void html_causes(FILE *out, const rd_fleet_analysis *a)
{
    fputs("<h2>Causes</h2>\n", out);
    if (!a->n_causes) {
        fputs("<p>No findings.</p>\n", out);
        return;
    }
    fputs("<table id=\"causes\">\n<tr><th>Severity</th><th>Finding</th><th>Nodes</th><th>Host list</th>"
          "<th>Remedy</th><th>Fix</th></tr>\n",
          out);
    for (size_t i = 0; i < a->n_causes; i++)
        html_cause(out, &a->causes[i]);
    fputs("</table>\n", out);
}

static void html_drift(FILE *out, const rd_fleet_analysis *a)
{
    if (!a->n_drift)
        return;
    fputs("<h2>Drift</h2>\n<table id=\"drift\">\n<tr><th>Class</th><th>Property</th><th>Majority</th>"
          "<th>Outliers</th></tr>\n",
          out);
    for (size_t i = 0; i < a->n_drift; i++) {
        const rd_fleet_drift *d = &a->drift[i];
        fputs("<tr class=\"drift\"><td>", out);
        html_escaped(out, d->klass);
        fputs("</td><td>", out);
        html_escaped(out, d->property);
        fputs("</td><td>", out);
        html_escaped(out, d->majority);
        fprintf(out, " (%zu)</td><td>", d->n_majority);
        for (size_t k = 0; k < d->n_outliers; k++) {
            fputs(k ? "<br>" : "", out);
            html_escaped(out, d->outliers[k].node);
            fputs(": ", out);
            html_escaped(out, d->outliers[k].value);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void html_unreachable(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a)
{
    if (!a->n_status[3])
        return;
    fputs("<h2>Not checked</h2>\n<table id=\"unreachable\">\n<tr><th>Node</th><th>Reason</th></tr>\n", out);
    for (size_t i = 0; i < fleet->n_nodes; i++)
        if (fleet->nodes[i].unreachable) {
            fputs("<tr class=\"unreachable-node\"><td>", out);
            html_escaped(out, fleet->nodes[i].name);
            fputs("</td><td>", out);
            html_escaped(out, fleet->nodes[i].unreachable);
            fputs("</td></tr>\n", out);
        }
    fputs("</table>\n", out);
}

/* The grid: one box per node, coloured by its status. */
static void html_nodes(FILE *out, const rd_fleet *fleet)
{
    fputs("<h2>Nodes</h2>\n<p class=\"legend\"><span class=\"ok\">healthy</span><span class=\"warning\">warnings"
          "</span><span class=\"error\">errors</span><span class=\"unreachable\">not checked</span></p>\n"
          "<div class=\"grid\" id=\"nodes\">\n",
          out);
    for (size_t i = 0; i < fleet->n_nodes; i++) {
        const rd_fleet_node *n = &fleet->nodes[i];
        const char *status = rd_fleet_status_name(n->exit_status);
        fprintf(out, "<span class=\"node %s\" title=\"", status);
        html_escaped(out, n->name);
        fprintf(out, ": %s", status);
        for (size_t k = 0; k < n->n_findings; k++) {
            fputs(k ? ", " : " (", out);
            html_escaped(out, n->findings[k].id);
        }
        fputs(n->n_findings ? ")\">" : "\">", out);
        html_escaped(out, n->name);
        fputs("</span>\n", out);
    }
    fputs("</div>\n", out);
}

int rd_report_fleet_html(FILE *out, const rd_fleet *fleet, const rd_fleet_analysis *a)
{
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>rocm-doctor fleet: %zu nodes</title>\n<style>%s</style>\n</head>\n<body>\n",
            fleet->n_nodes, html_style);
    fprintf(out,
            "<h1>rocm-doctor fleet: %zu nodes</h1>\n<p id=\"summary\">%zu healthy, %zu with warnings, "
            "%zu with errors, %zu not checked</p>\n",
            fleet->n_nodes, a->n_status[0], a->n_status[1], a->n_status[2], a->n_status[3]);
    html_causes(out, a);
    html_drift(out, a);
    html_unreachable(out, fleet, a);
    html_nodes(out, fleet);
    fputs("</body>\n</html>\n", out);
    return finish(out);
}
