/* SPDX-License-Identifier: MIT */
/* Containers: the host's /dev/kfd and render nodes must be passed in, and the
 * process must carry the host's numeric gid of those nodes (the container's
 * group names may map to other gids). */
#include <inttypes.h>
#include <sys/types.h>
#include "access.h"
#include "env.h"
#include "probe.h"
#include "util.h"

static void container_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_container_facts *c = &facts->container_env;
    c->uid = getuid();
    int n = getgroups(0, NULL);
    gid_t *gl = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(gid_t));
    n = getgroups(n > 0 ? n : 0, gl);
    if (n < 0) {
        c->error = xasprintf("getgroups: %s", strerror(errno));
        n = 0;
    }
    c->groups = xcalloc((size_t)n + 1, sizeof(int64_t));
    c->groups[c->n_groups++] = getgid();
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = 0; k < c->n_groups; k++)
            dup |= c->groups[k] == (int64_t)gl[i];
        if (!dup)
            c->groups[c->n_groups++] = gl[i];
    }
    free(gl);
}

/* The gid a file's group shows as when the host group has no mapping in the
 * user namespace (/proc/sys/kernel/overflowgid, 65534 unless changed). */
#define OVERFLOW_GID 65534

static char *join_gids(const int64_t *g, size_t n)
{
    strbuf b = { 0 };
    strbuf_append(&b, "");
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&b, "%s%" PRId64, i ? ", " : "", g[i]);
    return strbuf_steal(&b);
}

/* The start command for this kind of container, given the --group-add
 * arguments (numeric gids, or shell substitutions run on the host). */
static void remedy_for(rd_finding *fd, const char *kind, const char *groups)
{
    if (streq(kind, "kubernetes"))
        rd_finding_remedy(fd,
                          "Request the GPU through the AMD GPU device plugin (resources: limits: amd.com/gpu: 1); "
                          "it passes /dev/kfd and the GPU's render node. If the node does not advertise "
                          "amd.com/gpu, deploy the plugin's DaemonSet (ROCm k8s-device-plugin). Run the pod "
                          "with supplementalGroups:%s.",
                          groups);
    else if (streq(kind, "podman"))
        rd_finding_remedy(fd,
                          "Start the container with: podman run --device=/dev/kfd --device=/dev/dri%s ... "
                          "(rootless Podman: --group-add keep-groups instead of the gids).",
                          groups);
    else if (streq(kind, "lxc"))
        rd_finding_remedy(fd,
                          "Pass the devices: lxc config device add NAME kfd unix-char path=/dev/kfd and lxc "
                          "config device add NAME gpu gpu, with gid=%s.",
                          groups);
    else
        rd_finding_remedy(fd, "Start the container with: %s run --device=/dev/kfd --device=/dev/dri%s ...",
                          streq(kind, "docker") ? "docker" : "docker (or podman)", groups);
}

/* Device nodes the process (or the user checked with --user) cannot open for
 * lack of the host's group. For a user from the container's database only the
 * groups with no name here: a named group is one usermod can grant, which
 * kfd.no-access advises. */
static void assess_gids(const rd_facts *f, const char *kind, int64_t uid, const int64_t *groups, size_t n_groups,
                        const char *who, bool unnamed_only, rd_findings *out)
{
    rd_finding *fd = NULL;
    int64_t gids[64];
    size_t n_gids = 0;
    for (size_t i = 0; i < f->access.n_nodes; i++) {
        const rd_dev_node *node = &f->access.nodes[i];
        if (!node->exists || streq(node->role, "card") || rd_access_can_rw(node, uid, groups, n_groups))
            continue;
        if (unnamed_only && node->group)
            continue;
        if (!fd)
            fd = rd_finding_add(out, RD_FINDING(CONTAINER_GID_MISMATCH), RD_SEV_ERROR, NULL,
                                "The container's process lacks the host group of the GPU device nodes");
        rd_finding_evidence(fd, "%s: mode %04" PRIo64 ", group %" PRId64 " (%s in this container)", node->path,
                            node->mode, node->gid, node->group ? node->group : "no name");
        bool dup = false;
        for (size_t k = 0; k < n_gids; k++)
            dup |= gids[k] == node->gid;
        if (!dup && n_gids < ELEMENTSOF(gids))
            gids[n_gids++] = node->gid;
    }
    if (!fd)
        return;
    _cleanup_free_ char *have = join_gids(groups, n_groups);
    rd_finding_evidence(fd, "%s uid %" PRId64 ", groups %s", who, uid, have);
    bool unmapped = false;
    for (size_t k = 0; k < n_gids; k++)
        unmapped |= gids[k] == OVERFLOW_GID;
    if (unmapped) {
        /* a host group with no mapping in this user namespace shows as the
         * overflow gid; --group-add 65534 would not grant anything */
        rd_finding_evidence(fd, "group %d: the host's group is not mapped into this container's user namespace",
                            OVERFLOW_GID);
        if (!streq(kind, "kubernetes") && !streq(kind, "lxc"))
            rd_finding_remedy(fd, "Rootless Podman: start the container with podman run --device=/dev/kfd "
                                  "--device=/dev/dri --group-add keep-groups ... (crun runtime; the host user must "
                                  "be in the group of /dev/kfd and the render nodes). Otherwise run it rootful with "
                                  "--group-add and the host's numeric gids (stat -c %%g /dev/kfd on the host).");
        else
            remedy_for(fd, kind, " the host's numeric gids of /dev/kfd and /dev/dri/renderD* (stat -c %g on the host)");
        return;
    }
    strbuf g = { 0 };
    strbuf_append(&g, "");
    if (streq(kind, "kubernetes") || streq(kind, "lxc")) {
        _cleanup_free_ char *list = join_gids(gids, n_gids);
        strbuf_printf(&g, " [%s]", list);
    } else
        for (size_t k = 0; k < n_gids; k++)
            strbuf_printf(&g, " --group-add %" PRId64, gids[k]);
    remedy_for(fd, kind, g.s);
    free(g.s);
}

/* The remedy of container.devices-missing: the --group-add flags for the
 * gids of the nodes that were passed, or a stat of the host's nodes. */
static void devices_missing_remedy(const rd_facts *f, const char *kind, bool kfd_seen, rd_finding *missing)
{
    int64_t gids[64];
    size_t n_gids = 0;
    if (f->kfd.present)
        rd_finding_evidence(missing, "/sys/class/kfd/kfd: present (the host has KFD)");
    strbuf g = { 0 };
    strbuf_append(&g, "");
    for (size_t i = 0; i < f->access.n_nodes; i++) {
        const rd_dev_node *node = &f->access.nodes[i];
        if (node->exists && !streq(node->role, "card")) {
            bool dup = false;
            for (size_t k = 0; k < n_gids; k++)
                dup |= gids[k] == node->gid;
            if (!dup && n_gids < ELEMENTSOF(gids))
                gids[n_gids++] = node->gid;
        }
    }
    for (size_t k = 0; k < n_gids; k++)
        strbuf_printf(&g, " --group-add %" PRId64, gids[k]);
    if (!kfd_seen || n_gids == 0)
        strbuf_append(&g, " --group-add $(stat -c %g /dev/kfd) --group-add $(stat -c %g /dev/dri/renderD128)");
    if (streq(kind, "kubernetes") || streq(kind, "lxc"))
        remedy_for(missing, kind, n_gids ? g.s : " the gids of /dev/kfd and /dev/dri/renderD* on the host");
    else
        remedy_for(missing, kind, g.s);
    free(g.s);
}

/* container.devices-missing: GPU nodes of the host that the container was
 * not given. Returns whether it was reported. */
static bool assess_devices(const rd_facts *f, const char *kind, rd_findings *out)
{
    rd_finding *missing = NULL;
    bool kfd_seen = false, render_passed = false;
    for (size_t i = 0; i < f->access.n_nodes; i++)
        render_passed |= f->access.nodes[i].exists && streq(f->access.nodes[i].role, "render");
    for (size_t i = 0; i < f->access.n_nodes; i++) {
        const rd_dev_node *node = &f->access.nodes[i];
        if (streq(node->role, "card"))
            continue;
        kfd_seen |= streq(node->role, "kfd");
        /* without KFD on the host there is no /dev/kfd to pass: kfd.missing
         * reports the host's cause */
        if (node->exists || (streq(node->role, "kfd") && !f->kfd.present))
            continue;
        /* sysfs shows every GPU of the host; with some render nodes passed,
         * the others were left out on purpose (the Kubernetes device plugin
         * and --device=/dev/dri/renderD<N> hand out GPUs one by one) */
        if (streq(node->role, "render") && render_passed)
            continue;
        if (!missing) {
            missing = rd_finding_add(out, RD_FINDING(CONTAINER_DEVICES_MISSING), RD_SEV_ERROR, NULL,
                                     "This %s container was not given the GPU devices", kind);
            rd_finding_evidence(missing, "%s", f->os.container_evidence ? f->os.container_evidence : kind);
        }
        rd_finding_evidence(missing, "%s: absent in the container", node->path);
    }
    if (missing)
        devices_missing_remedy(f, kind, kfd_seen, missing);
    return missing != NULL;
}

static void container_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const char *kind = f->os.container;
    if (!kind)
        return;
    rd_agent *agents = NULL;
    size_t n_agents = 0;
    rd_agents_build(in->facts, in->gpus, in->knowledge, &agents, &n_agents);
    free(agents);
    /* with no GPU in the host's sysfs either, gpu.none already says it all */
    if (in->gpus->n_gpus == 0 && n_agents == 0)
        return;

    if (assess_devices(f, kind, out))
        return;

    /* groups: only an unprivileged process needs them; checked as root with
     * --user, that user's groups from the container's database */
    if (f->container_env.n_groups > 0 && f->container_env.uid != 0) {
        assess_gids(f, kind, f->container_env.uid, f->container_env.groups, f->container_env.n_groups, "process", false,
                    out);
        return;
    }
    for (size_t u = 0; u < f->access.n_users; u++) {
        const rd_user_facts *user = &f->access.users[u];
        if (user->error || user->session_known)
            continue;
        _cleanup_free_ char *who = xasprintf("%s (%s)", user->name, strempty(user->source));
        assess_gids(f, kind, user->uid, user->groups, user->n_groups, who, true, out);
    }
}

static const char *const container_findings[] = { RD_FINDING(CONTAINER_DEVICES_MISSING),
                                                  RD_FINDING(CONTAINER_GID_MISMATCH), NULL };

const rd_probe rd_probe_container = {
    .id = "container",
    .title = "Container devices and groups",
    .flags = 0,
    .findings = container_findings,
    .areas = RD_STRV("container_env"),
    .uevents = RD_STRV("pci", "drm", "kfd"),
    .gather = container_gather,
    .assess = container_assess,
};
