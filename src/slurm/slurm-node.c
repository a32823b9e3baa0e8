/* SPDX-License-Identifier: MIT */
#include "slurm-node.h"

#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <sys/stat.h>
#include "explain.h"
#include "json-util.h"
#include "rootfs.h"
#include "util.h"

/* The value of "Key=" on one of the lines of text, to the end of its line
 * (Reason) or to the next blank (State). */
static char *field(const char *text, const char *key, bool to_eol)
{
    size_t klen = strlen(key);
    for (const char *p = text; (p = strstr(p, key)); p += klen) {
        if (p != text && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '\t')
            continue;
        const char *v = p + klen;
        size_t n = to_eol ? strcspn(v, "\n") : strcspn(v, " \t\n");
        return xstrndup(v, n);
    }
    return NULL;
}

int rd_slurm_node_state_parse(const char *text, rd_slurm_node_state *ret)
{
    _cleanup_free_ char *state = field(text, "State=", false);
    if (!state || !*state)
        return -EINVAL;
    char *reason = field(text, "Reason=", true);
    if (reason) {
        /* Slurm appends " [user@time]" */
        char *bracket = strrchr(reason, '[');
        size_t n = strlen(reason);
        if (bracket && n > 0 && reason[n - 1] == ']' && bracket > reason && bracket[-1] == ' ')
            bracket[-1] = 0;
        if (!*reason || streq(reason, "(null)")) {
            free(reason);
            reason = NULL;
        }
    }
    /* "IDLE+DRAIN", "DOWN*+DRAIN", "MIXED+FAIL": the base state, then its
     * flags; '*' and the like mark a node that does not respond */
    _cleanup_free_ char *words = xstrdup(state);
    bool first = true;
    for (char *save = NULL, *w = strtok_r(words, "+", &save); w; w = strtok_r(NULL, "+", &save), first = false) {
        w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_")] = 0;
        ret->drain |= streq(w, "DRAIN") || streq(w, "DRAINED") || streq(w, "DRAINING");
        ret->down |= (first && (streq(w, "DOWN") || streq(w, "ERROR"))) || streq(w, "FAIL") || streq(w, "FAILING");
    }
    ret->state = TAKE_PTR(state);
    ret->reason = reason;
    return 0;
}

void rd_slurm_node_state_done(rd_slurm_node_state *s)
{
    free(s->state);
    free(s->reason);
    *s = (rd_slurm_node_state){ 0 };
}

char *rd_slurm_reason(char *const *ids)
{
    if (!ids || !*ids)
        return xstrdup(RD_SLURM_REASON_PREFIX " check failed");
    strbuf b = { 0 };
    strbuf_append(&b, RD_SLURM_REASON_PREFIX " ");
    size_t n = strv_length(ids);
    for (size_t i = 0; i < n; i++) {
        /* room for this id and, when more follow, a ",+N" */
        size_t more = i + 1 < n ? 8 : 0;
        if (b.len + (i ? 1 : 0) + strlen(ids[i]) + more > RD_SLURM_REASON_MAX) {
            strbuf_printf(&b, "%s+%zu", i ? "," : "", n - i);
            break;
        }
        strbuf_printf(&b, "%s%s", i ? "," : "", ids[i]);
    }
    return strbuf_steal(&b);
}

/* "+N": the count of the ids that did not fit */
static bool is_count(const char *s, size_t n)
{
    if (n < 2 || n > 8 || s[0] != '+' || s[1] == '0')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

bool rd_slurm_reason_is_ours(const char *reason)
{
    if (!reason || strlen(reason) > RD_SLURM_REASON_MAX)
        return false;
    if (streq(reason, RD_SLURM_REASON_PREFIX " check failed"))
        return true;
    const char *list = startswith(reason, RD_SLURM_REASON_PREFIX " ");
    if (!list || !*list)
        return false;
    /* ID,ID,...[,+N] or +N alone, nothing else */
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        bool last = p[n] == 0;
        if (is_count(p, n)) {
            if (!last)
                return false;
        } else {
            _cleanup_free_ char *id = xstrndup(p, n);
            if (!rd_finding_id_valid(id))
                return false;
        }
        if (last)
            return true;
        p += n + 1;
    }
}

bool rd_slurm_reason_kept(const rd_slurm_node_state *after)
{
    return !after->drain && !after->down && rd_slurm_reason_is_ours(after->reason);
}

bool rd_slurm_node_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > RD_SLURM_NODE_NAME_MAX || name[0] == '-' || name[0] == '.' || strcasecmp(name, "ALL") == 0)
        return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
            return false;
    return true;
}

rd_slurm_action rd_slurm_decide(int status, char *const *error_ids, rd_slurm_on_unknown on_unknown,
                                const rd_slurm_node_state *node, char **ret_reason)
{
    bool ours = node->drain && rd_slurm_reason_is_ours(node->reason);
    /* DOWN and FAIL are an administrator's or Slurm's, never rocm-doctor's */
    if (node->down)
        return RD_SLURM_KEEP;
    if (status == 3 && on_unknown == RD_SLURM_UNKNOWN_KEEP)
        return RD_SLURM_KEEP;
    if (status != 2 && status != 3)
        return ours ? RD_SLURM_RESUME : RD_SLURM_KEEP;
    /* an administrator's drain (or Slurm's own) stays as it is */
    if (node->drain && !ours)
        return RD_SLURM_KEEP;
    _cleanup_free_ char *reason = rd_slurm_reason(status == 2 ? error_ids : NULL);
    if (ours && streq(node->reason, reason))
        return RD_SLURM_KEEP;
    *ret_reason = TAKE_PTR(reason);
    return RD_SLURM_DRAIN;
}

int rd_slurm_report_verdict(json_object *report, char ***ret_ids)
{
    json_object *findings;
    if (!json_object_object_get_ex(report, "findings", &findings) || !json_object_is_type(findings, json_type_array))
        return -EINVAL;
    int status = 0;
    for (size_t i = 0; i < json_object_array_length(findings); i++) {
        json_object *f = json_object_array_get_idx(findings, i);
        const char *sev = rd_json_get_str(f, "severity"), *id = rd_json_get_str(f, "id");
        if (!sev || !id || !rd_finding_id_valid(id))
            return -EINVAL;
        if (streq(sev, "error")) {
            status = 2;
            *ret_ids = strv_push(*ret_ids, xstrdup(id));
        } else if (streq(sev, "warning") && status < 1)
            status = 1;
    }
    return status;
}

int rd_slurm_status_verdict(int root_fd, const char *path, time_t now, char ***ret_ids, bool *ret_opened)
{
    struct stat st;
    _cleanup_close_ int fd = rootfs_open_regular(root_fd, path, ROOTFS_IN_ROOT, &st);
    *ret_opened = fd >= 0;
    if (fd < 0)
        return fd;
    if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return -EPERM;
    if (st.st_mtime < now - RD_SLURM_STATUS_MAX_AGE_S)
        return -ESTALE;
    _cleanup_free_ char *text = NULL;
    size_t size;
    int r = read_fd_sized(fd, &st, 64u << 20, &text, &size);
    if (r < 0)
        return r;
    json_object *j = json_tokener_parse(text);
    r = j ? rd_slurm_report_verdict(j, ret_ids) : -EINVAL;
    json_object_put(j);
    return r;
}
