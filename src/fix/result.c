/* SPDX-License-Identifier: MIT */
/* What an applied run achieved, per finding it addressed: the check is run
 * again, and a finding that is gone is fixed; one whose fix counts only
 * after a re-login or a reboot is fixed then, since the running system
 * still shows the old state. */
#include "journal.h"
#include "json-util.h"
#include "util.h"

static const char *const result_names[] = {
    [RD_RESULT_FIXED] = "fixed",
    [RD_RESULT_RELOGIN] = "fixed-after-relogin",
    [RD_RESULT_REBOOT] = "fixed-after-reboot",
    [RD_RESULT_FAILING] = "still-failing",
    [RD_RESULT_PARTLY] = "partly-fixed",
};
static const char *const result_texts[] = {
    [RD_RESULT_FIXED] = "fixed",
    [RD_RESULT_RELOGIN] = "fixed after re-login",
    [RD_RESULT_REBOOT] = "fixed after reboot",
    [RD_RESULT_FAILING] = "still failing",
    [RD_RESULT_PARTLY] = "partly fixed",
};

const char *rd_result_name(rd_result_kind k)
{
    return result_names[k];
}

const char *rd_result_text(rd_result_kind k)
{
    return result_texts[k];
}

/* When the step's change counts; commands deferred to the first boot of a
 * root make it a reboot. */
static rd_effect step_effect(const rd_plan *p, const rd_step *s)
{
    for (size_t a = 0; a < s->n_actions; a++)
        if (s->actions[a].kind == RD_ACT_COMMAND && !streq(p->root, "/"))
            return RD_EFFECT_REBOOT;
    return s->effect;
}

static rd_fix_result classify(const rd_plan *p, const rd_step *s, const char *id, const rd_findings *again,
                              bool from_facts)
{
    rd_fix_result res = { .finding = id, .fix = s->fix, .kind = RD_RESULT_FAILING };
    if (!again) {
        res.why = "the check could not run again";
        return res;
    }
    const rd_finding *f = rd_findings_get(again, id);
    if (f && f->severity < RD_SEV_WARNING)
        f = NULL; /* what is left is only information */
    rd_effect e = step_effect(p, s);
    if (f && !from_facts && e != RD_EFFECT_REBOOT) {
        res.why = f->summary;
        return res;
    }
    /* gone from the check; or not re-gathered (--facts); or the running
     * kernel shows the old state until the reboot */
    if (f && e == RD_EFFECT_NOW) {
        res.why = from_facts ? "not checked again: the diagnosis comes from --facts" : f->summary;
        return res;
    }
    res.kind = e == RD_EFFECT_RELOGIN ? RD_RESULT_RELOGIN : e == RD_EFFECT_REBOOT ? RD_RESULT_REBOOT : RD_RESULT_FIXED;
    return res;
}

void rd_fix_classify(const rd_plan *p, const rd_findings *again, bool from_facts, rd_fix_results *ret)
{
    rd_fix_results r = { 0 };
    for (size_t i = 0; i < p->n_steps; i++) {
        const rd_step *s = &p->steps[i];
        for (size_t k = 0; s->findings && s->findings[k]; k++) {
            rd_fix_result *x = ARRAY_APPEND(r.items, r.n);
            *x = classify(p, s, s->findings[k], again, from_facts);
            /* never "fixed" while the same fix left part of it unplanned
             * (a blacklist on the kernel command line beside the one in
             * modprobe.d): partly fixed, and what is left */
            for (size_t n = 0; x->kind != RD_RESULT_FAILING && n < p->n_not_planned; n++)
                if (streq(p->not_planned[n].fix, s->fix) && (p->not_planned[n].partial || p->not_planned[n].refused)) {
                    x->kind = RD_RESULT_PARTLY;
                    x->why = p->not_planned[n].reason;
                }
            r.failing |= x->kind == RD_RESULT_FAILING || x->kind == RD_RESULT_PARTLY;
        }
    }
    *ret = r;
}

void rd_fix_results_free(rd_fix_results *r)
{
    free(r->items);
    *r = (rd_fix_results){ 0 };
}

json_object *rd_fix_results_to_json(const rd_fix_results *r)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->n; i++) {
        const rd_fix_result *x = &r->items[i];
        json_object *o = json_object_new_object();
        rd_json_set_str(o, "finding", x->finding);
        rd_json_set_str(o, "fix", x->fix);
        rd_json_set_str(o, "status", rd_result_name(x->kind));
        if (x->why)
            rd_json_set_str(o, "why", x->why);
        json_object_array_add(a, o);
    }
    return a;
}
