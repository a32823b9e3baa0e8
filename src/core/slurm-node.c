/* SPDX-License-Identifier: MIT */
#include "slurm-node.h"

#include <errno.h>
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
    ret->drain = strstr(state, "DRAIN") != NULL;
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

bool rd_slurm_reason_is_ours(const char *reason)
{
    return reason && startswith(reason, RD_SLURM_REASON_PREFIX);
}

rd_slurm_action rd_slurm_decide(int status, char *const *error_ids, rd_slurm_on_unknown on_unknown,
                                const rd_slurm_node_state *node, char **ret_reason)
{
    bool ours = node->drain && rd_slurm_reason_is_ours(node->reason);
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
