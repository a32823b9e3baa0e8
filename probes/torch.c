/* SPDX-License-Identifier: MIT */
/* PyTorch, only when asked (--with-python): which build is installed (ROCm,
 * CUDA or CPU) and which GPU targets it has kernels for. Python runs in a
 * child process with a time limit and imports torch and nothing else. */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "env.h"
#include "probe.h"
#include "util.h"

#define PYTHON "python3"
#define OUTPUT_MAX (64 * 1024)

/* What the build is and which targets it has code for, all read without
 * starting the HIP runtime and printed (flushed) before anything that could
 * start it: torch.cuda.is_available() initialises HIP, and a wheel without
 * code for the GPU aborts the process there (hipErrorNoBinaryForGpu).
 * torch._C._cuda_getArchFlags() is a compile-time string; a build that lacks
 * it has its code objects in lib/libtorch_hip.so, named
 * amdgcn-amd-amdhsa--gfxNNNN in the offload bundles. get_arch_list() starts
 * HIP and is empty without a usable GPU: the last resort. */
static const char torch_script[] =
    /* python -c puts the working directory first on sys.path: a torch/ or
     * torch.py there (a PyTorch source tree) would be imported instead of
     * the installed build */
    "import sys, os, re\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "import torch\n"
    "def out(k, v):\n"
    "    print(k + '\\t' + v, flush=True)\n"
    "out('version', str(torch.__version__))\n"
    "out('hip', str(getattr(torch.version, 'hip', None)))\n"
    "out('cuda', str(getattr(torch.version, 'cuda', None)))\n"
    /* where pip got it, when it was a URL or file install (PEP 610) */
    "try:\n"
    "    import importlib.metadata, json\n"
    "    du = importlib.metadata.distribution('torch').read_text('direct_url.json')\n"
    "    if du:\n"
    "        out('directurl', str(json.loads(du).get('url', '')))\n"
    "except Exception:\n"
    "    pass\n"
    "archs = None\n"
    "try:\n"
    "    flags = torch._C._cuda_getArchFlags()\n"
    "    if flags:\n"
    "        archs = flags.split()\n"
    "        out('archsource', 'torch._C._cuda_getArchFlags()')\n"
    "except Exception:\n"
    "    pass\n"
    "if archs is None and getattr(torch.version, 'hip', None):\n"
    "    lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_hip.so')\n"
    "    try:\n"
    "        import mmap\n"
    "        with open(lib, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:\n"
    "            found = sorted(set(x.decode() for x in re.findall(rb'amdgcn-amd-amdhsa--(gfx[0-9a-f]+)', m)))\n"
    "        if found:\n"
    "            archs = found\n"
    "            out('archsource', lib + ' (code objects)')\n"
    "    except Exception:\n"
    "        pass\n"
    "if archs is not None:\n"
    "    out('archs', ' '.join(archs))\n"
    "ok = False\n"
    "try:\n"
    "    ok = bool(torch.cuda.is_available())\n"
    "    out('available', '1' if ok else '0')\n"
    "except Exception:\n"
    "    pass\n"
    "if archs is None and ok:\n"
    "    try:\n"
    "        out('archsource', 'torch.cuda.get_arch_list()')\n"
    "        out('archs', ' '.join(torch.cuda.get_arch_list()))\n"
    "    except Exception:\n"
    "        pass\n";

/* The first line of the child's error output that names a HIP or HSA error
 * (hipErrorNoBinaryForGpu, "HIP error: ...", HSA_STATUS_ERROR_...). */
static int hip_error_line(char *line, void *userdata)
{
    static const char *const marks[] = { "hipError", "HIP error", "HSA_STATUS_ERROR", "HIP_ERROR" };
    for (size_t i = 0; i < ELEMENTSOF(marks); i++)
        if (strstr(line, marks[i])) {
            *(char **)userdata = xstrdup(strstrip(line));
            return 1;
        }
    return 0;
}

char *rd_torch_hip_error_line(const char *text)
{
    char *found = NULL;
    foreach_line(text, hip_error_line, &found);
    return found;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void drain(int *fd, strbuf *b)
{
    char buf[4096];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0) {
        if (b->len + (size_t)n <= OUTPUT_MAX)
            strbuf_appendn(b, buf, (size_t)n);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(*fd);
        *fd = -1;
    }
}

static char *none_to_null(const char *v)
{
    return (!*v || streq(v, "None")) ? NULL : xstrdup(v);
}

/* One "key\tvalue" line of the child's output. */
static int torch_output_line(char *l, void *userdata)
{
    rd_torch_facts *t = userdata;
    char *tab = strchr(l, '\t');
    if (!tab)
        return 0;
    *tab++ = 0;
    if (streq(l, "version")) {
        free(t->version);
        t->version = none_to_null(tab);
        t->imported = true;
    } else if (streq(l, "hip")) {
        free(t->hip);
        t->hip = none_to_null(tab);
    } else if (streq(l, "cuda")) {
        free(t->cuda);
        t->cuda = none_to_null(tab);
    } else if (streq(l, "directurl")) {
        free(t->direct_url);
        t->direct_url = *tab ? xstrdup(tab) : NULL;
    } else if (streq(l, "available"))
        t->available = streq(tab, "1");
    else if (streq(l, "archsource")) {
        free(t->arch_source);
        t->arch_source = xstrdup(tab);
    } else if (streq(l, "archs")) {
        strv_free(t->arch_list);
        t->arch_list = NULL;
        char *save = NULL;
        for (char *a = strtok_r(tab, " ", &save); a; a = strtok_r(NULL, " ", &save))
            t->arch_list = strv_push(t->arch_list, xstrdup(a));
        t->arch_list_known = true;
    }
    return 0;
}

void rd_torch_parse_output(rd_torch_facts *t, const char *out)
{
    foreach_line(out, torch_output_line, t);
}

static char *last_line(char *text)
{
    char *last = NULL;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (*strstrip(l))
            last = l;
    return last ? xstrdup(strstrip(last)) : NULL;
}

/* Reads the child's stdout and stderr until both close or the deadline
 * passes (t->timed_out). */
static void read_pipes(rd_torch_facts *t, int *out_fd, int *err_fd, int64_t deadline, strbuf *ob, strbuf *eb)
{
    while (*out_fd >= 0 || *err_fd >= 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            t->timed_out = true;
            break;
        }
        struct pollfd p[2] = { { .fd = *out_fd, .events = POLLIN }, { .fd = *err_fd, .events = POLLIN } };
        int r = poll(p, 2, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno != EINTR) {
            t->timed_out = true; /* cannot watch the child: stop it, never wait blindly */
            break;
        }
        if (*out_fd >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            drain(out_fd, ob);
        if (*err_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
            drain(err_fd, eb);
    }
}

/* Waits for the child until the deadline, then kills its process group;
 * returns its wait status. */
static int reap_child(rd_torch_facts *t, pid_t pid, int64_t deadline)
{
    int status = 0;
    /* Both pipes are closed, but the child may still run: wait for it only
     * until the deadline. */
    while (!t->timed_out) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (now_ms() >= deadline) {
            t->timed_out = true;
            break;
        }
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (t->timed_out) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    return status;
}

/* t->exit_status and t->error from the child's wait status and output. */
static void record_exit(rd_torch_facts *t, int status, int64_t limit_s, const char *out, char *err)
{
    if (t->timed_out) {
        t->exit_status = -1;
        t->error = xasprintf("%s did not finish within %" PRId64 " seconds (killed)", t->python, limit_s);
    } else if (WIFEXITED(status)) {
        t->exit_status = WEXITSTATUS(status);
        if (t->exit_status == 127 && !*out)
            t->error = xasprintf("%s: not found", t->python);
        else if (t->exit_status != 0)
            t->error = last_line(err);
    } else if (WIFSIGNALED(status))
        t->error =
            xasprintf("%s was killed by signal %d (%s)", t->python, WTERMSIG(status), strsignal(WTERMSIG(status)));
}

/* The interpreter to run: --python's (an executable, or an environment
 * directory's bin/python3, else bin/python) on the live system; python3
 * from PATH otherwise. Under --root nothing of the image is run. */
static char *interpreter(const rd_ctx *ctx)
{
    struct stat st;
    if (!ctx->python || rd_ctx_has_root(ctx) || stat(ctx->python, &st) < 0)
        return xstrdup(PYTHON);
    if (!S_ISDIR(st.st_mode))
        return xstrdup(ctx->python);
    _cleanup_free_ char *py3 = xasprintf("%s/bin/python3", ctx->python);
    if (access(py3, X_OK) == 0)
        return TAKE_PTR(py3);
    return xasprintf("%s/bin/python", ctx->python);
}

static void torch_gather(const rd_ctx *ctx, rd_facts *facts)
{
    rd_torch_facts *t = &facts->torch;
    t->exit_status = -1;
    t->available = -1;
    if (!ctx->with_python)
        return;
    int64_t limit_s = (ctx->runtime_timeout_s > 0 ? ctx->runtime_timeout_s : 20) * 3;
    int out[2] = { -1, -1 }, err[2] = { -1, -1 };
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        t->error = xasprintf("pipe: %s", strerror(errno));
        goto fail;
    }
    t->python = interpreter(ctx);
    pid_t pid = fork();
    if (pid < 0) {
        t->error = xasprintf("fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(126);
        execlp(t->python, t->python, "-c", torch_script, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    t->ran = true;
    close(out[1]);
    close(err[1]);
    out[1] = err[1] = -1;
    strbuf ob = { 0 }, eb = { 0 };
    strbuf_append(&ob, "");
    strbuf_append(&eb, "");
    int64_t deadline = now_ms() + limit_s * 1000;
    read_pipes(t, &out[0], &err[0], deadline, &ob, &eb);
    int status = reap_child(t, pid, deadline);
    record_exit(t, status, limit_s, ob.s, eb.s);
    rd_torch_parse_output(t, ob.s);
    /* an abort in HIP is evidence, not a lost probe */
    if (!t->timed_out && (t->exit_status != 0))
        t->hip_error = rd_torch_hip_error_line(eb.s);
    free(ob.s);
    free(eb.s);
fail:
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close(out[i]);
        if (err[i] >= 0)
            close(err[i]);
    }
}

void rd_torch_origin_of(const char *version, const char *direct_url, rd_torch_origin *ret)
{
    *ret = (rd_torch_origin){ .index = RD_TORCH_INDEX_UNKNOWN, .certain = false, .from = "the version's local tag" };
    const char *tag = version ? strchr(version, '+') : NULL;
    const char *num = tag ? startswith(tag + 1, "rocm") : NULL;
    size_t n = num && isdigit((unsigned char)*num) ? strspn(num, "0123456789.") : 0;
    const char *rest = num ? num + n : NULL;
    while (n > 0 && num[n - 1] == '.')
        n--;
    if (n > 0 && n < sizeof ret->series)
        memcpy(ret->series, num, n);
    unsigned dots = 0;
    for (size_t i = 0; i < n; i++)
        dots += num[i] == '.';
    if (*ret->series) {
        bool nightly = strstr(version, ".dev") != NULL;
        ret->index = *rest     ? RD_TORCH_INDEX_AMD_RELEASE
                     : nightly ? RD_TORCH_INDEX_PYTORCH_NIGHTLY
                               : RD_TORCH_INDEX_PYTORCH;
        ret->certain = *rest || dots == 1 || nightly;
    }
    if (direct_url) {
        static const struct {
            const char *host;
            rd_torch_index index;
        } hosts[] = {
            { "repo.radeon.com/rocm/manylinux/", RD_TORCH_INDEX_AMD_RELEASE },
            { "download.pytorch.org/whl/nightly/", RD_TORCH_INDEX_PYTORCH_NIGHTLY },
            { "download.pytorch.org/whl/", RD_TORCH_INDEX_PYTORCH },
        };
        for (size_t i = 0; i < ELEMENTSOF(hosts); i++)
            if (strstr(direct_url, hosts[i].host)) {
                ret->index = hosts[i].index;
                ret->certain = true;
                ret->from = "direct_url.json";
                break;
            }
    }
}

/* "7.1" of ROCm "7.1.0", "6.4.1" of "6.4.1": how AMD names its release
 * directories (rocm-rel-7.1, rocm-rel-6.4.1); with major_minor, "X.Y". */
static bool series_of(const char *v, bool major_minor, char *buf, size_t size)
{
    unsigned ma, mi, pa = 0;
    int got = v ? sscanf(v, "%u.%u.%u", &ma, &mi, &pa) : 0;
    if (got < 2)
        return false;
    if (major_minor || pa == 0)
        snprintf(buf, size, "%u.%u", ma, mi);
    else
        snprintf(buf, size, "%u.%u.%u", ma, mi, pa);
    return true;
}

/* AMD's release directory for the host's ROCm (wheels.ini [index] release,
 * "rocm-rel-7.1"); X.Y where none is installed. */
static char *amd_release_url(const rd_facts *f, const rd_knowledge *k)
{
    (void)rd_knowledge_need(k, RD_KT_WHEELS, NULL);
    const char *tpl = k->wheel_release && strstr(k->wheel_release, "{series}")
                          ? k->wheel_release
                          : "https://repo.radeon.com/rocm/manylinux/rocm-rel-{series}/";
    char series[32];
    if (!series_of(f->rocm.default_version, false, series, sizeof series))
        snprintf(series, sizeof series, "X.Y");
    const char *ph = strstr(tpl, "{series}");
    return xasprintf("%.*s%s%s", (int)(ph - tpl), tpl, series, ph + strlen("{series}"));
}

/* The pip command that installs torch again, from the index this build came
 * from where its files tell, for the host's ROCm series (X.Y where none is
 * installed); where they do not tell, the index it assumes is named. */
static char *install_command(const rd_facts *f, const rd_knowledge *k)
{
    const rd_torch_facts *t = &f->torch;
    rd_torch_origin o;
    rd_torch_origin_of(t->version, t->direct_url, &o);
    char series[32];
    bool known = series_of(f->rocm.default_version, true, series, sizeof series);
    if (!known)
        snprintf(series, sizeof series, "X.Y");
    const char *unknown_series = known ? "" : " (X.Y: the ROCm series of this host's driver)";
    _cleanup_free_ char *amd = amd_release_url(f, k);
    _cleanup_free_ char *said =
        xasprintf("(its %s %s so)", streq(o.from, "direct_url.json") ? "direct_url.json" : "version's local tag",
                  o.certain ? "says" : "suggests");
    if (o.index == RD_TORCH_INDEX_AMD_RELEASE)
        return xasprintf("`pip3 install --force-reinstall torch --find-links %s`%s, AMD's release wheels, which "
                         "torch %s came from %s",
                         amd, unknown_series, t->version, said);
    if (o.index == RD_TORCH_INDEX_PYTORCH_NIGHTLY)
        return xasprintf("`pip3 install --pre --force-reinstall torch --index-url "
                         "https://download.pytorch.org/whl/nightly/rocm%s`%s, PyTorch's nightly wheels, which "
                         "torch %s came from %s",
                         series, unknown_series, t->version, said);
    _cleanup_free_ char *cmd = xasprintf("`pip3 install --force-reinstall torch --index-url "
                                         "https://download.pytorch.org/whl/rocm%s`%s",
                                         series, unknown_series);
    if (o.index == RD_TORCH_INDEX_PYTORCH)
        return xasprintf("%s, pytorch.org's wheels, which torch %s came from %s", cmd, t->version, said);
    return xasprintf("%s; that index is assumed: torch %s does not say where it came from (AMD's release wheels "
                     "install with --find-links %s instead)",
                     cmd, strempty(t->version), amd);
}

static bool in_list(char *const *l, const char *gfx)
{
    for (; l && *l; l++) {
        const char *colon = strchr(*l, ':');
        size_t n = colon ? (size_t)(colon - *l) : strlen(*l);
        if (strlen(gfx) == n && strncasecmp(*l, gfx, n) == 0)
            return true;
    }
    return false;
}

/* arch.no-kernels for one GPU whose target (and HSA_OVERRIDE_GFX_VERSION
 * target, if set) is not in the wheel's build targets `list`. */
static void assess_agent(const rd_facts *f, const rd_agent *a, const char *list, const char *install, rd_findings *out)
{
    const rd_torch_facts *t = &f->torch;
    if (!*a->gfx || in_list(t->arch_list, a->gfx))
        return;
    char over[16];
    rd_env_override_target(&f->env, a->node_id, over, sizeof over);
    if (*over && in_list(t->arch_list, over))
        return;
    rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_ERROR, a->pci_address,
                                    "PyTorch %s (ROCm %s) has no kernels for %s (%s)", strempty(t->version), t->hip,
                                    a->name, a->gfx);
    rd_finding_evidence(fd, "%s: %s", t->arch_source ? t->arch_source : "PyTorch's build targets",
                        list ? list : "(empty)");
    if (t->hip_error)
        rd_finding_evidence(fd, "torch.cuda.is_available() failed: %s", t->hip_error);
    rd_finding_evidence(fd, "KFD node %" PRId64 ": %s", a->node_id, a->gfx);
    if (a->arch && a->arch->override) {
        char fam[16] = "";
        unsigned ma, mi, st;
        if (rd_gfx_override_parse(a->arch->override, &ma, &mi, &st) == 0)
            (void)rd_gfx_name((uint64_t)ma * 10000 + mi * 100 + st, fam, sizeof fam);
        if (*fam && in_list(t->arch_list, fam)) {
            rd_finding_remedy(fd,
                              "The wheel has kernels for %s, of the same family: set %s_%" PRId64 "=%s "
                              "(this GPU only) and confirm with rocm-doctor --level 2; or install a wheel "
                              "built for %s.",
                              fam, "HSA_OVERRIDE_GFX_VERSION", a->node_id, a->arch->override, a->gfx);
            rd_finding_set_fix(fd, "env");
            return;
        }
    }
    rd_finding_remedy(fd,
                      "Install a wheel built for %s (a newer ROCm series: %s), or build PyTorch from source "
                      "with PYTORCH_ROCM_ARCH=%s.",
                      a->gfx, install, a->gfx);
}

static void torch_assess(const rd_assess_input *in, rd_findings *out)
{
    const rd_facts *f = in->facts;
    const rd_torch_facts *t = &f->torch;
    if (!t->ran || !t->imported)
        return;
    _cleanup_free_ char *install = install_command(f, in->knowledge);

    rd_agent *agents = NULL;
    size_t n = 0;
    rd_agents_build(in->facts, in->gpus, in->knowledge, &agents, &n);
    if (n == 0 && in->gpus->n_gpus == 0)
        goto done;

    if (!t->hip) {
        rd_finding *fd = rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_ERROR, NULL,
                                        "PyTorch %s is a %s build: it has no kernels for AMD GPUs",
                                        strempty(t->version), t->cuda ? "CUDA" : "CPU-only");
        rd_finding_evidence(fd, "torch.__version__ %s, torch.version.hip None, torch.version.cuda %s",
                            strempty(t->version), t->cuda ? t->cuda : "None");
        rd_finding_remedy(fd,
                          "Install the ROCm build instead: %s. In PyTorch the AMD GPU is still the \"cuda\" "
                          "device.",
                          install);
        goto done;
    }
    if (!t->arch_list_known || !t->arch_list) {
        if (t->hip_error && strstr(t->hip_error, "NoBinaryForGpu")) {
            /* the build's targets are unknown, its abort says enough */
            rd_finding *fd =
                rd_finding_add(out, RD_FINDING(ARCH_NO_KERNELS), RD_SEV_ERROR, NULL,
                               "PyTorch %s (ROCm %s) has no code for a GPU of this host", strempty(t->version), t->hip);
            rd_finding_evidence(fd, "torch.cuda.is_available() failed: %s", t->hip_error);
            rd_finding_remedy(fd,
                              "Install a wheel built for this host's GPUs (%s), or build PyTorch from source with "
                              "PYTORCH_ROCM_ARCH set to their targets.",
                              install);
        }
        goto done;
    }

    bool has_dgpu = false;
    for (size_t i = 0; i < n; i++)
        has_dgpu |= !agents[i].integrated;
    strbuf list = { 0 };
    for (char **a = t->arch_list; *a; a++)
        strbuf_printf(&list, "%s%s", a == t->arch_list ? "" : " ", *a);
    for (size_t i = 0; i < n; i++)
        if (!agents[i].integrated || !has_dgpu)
            assess_agent(f, &agents[i], list.s, install, out);
    free(list.s);
done:
    free(agents);
}

static const char *const torch_findings[] = { RD_FINDING(ARCH_NO_KERNELS), NULL };

/* clang-format off */
const rd_probe rd_probe_torch = {
    .id = "torch",
    .title = "PyTorch build and GPU targets",
    .flags = 0,
    .findings = torch_findings,
    .areas = RD_STRV("torch"),
    .reads = (const rd_probe_input[]){
        { "/var/lib/dpkg/status", false },
        { NULL, false },
    },
    .gather = torch_gather,
    .assess = torch_assess,
};
/* clang-format on */
