/* tb-run - run one command inside a umockdev testbed.
 *
 *   tb-run [-d FILE.umockdev]... [-o OVERLAY_DIR] [--node DEVPATH:MODE:UID:GID]... -- CMD [ARGS...]
 *
 * The scenario tests describe a machine as device records (-d) plus an overlay
 * directory with everything a record cannot express (driver directories under
 * /sys/bus/pci/drivers, /sys/module, /proc files, /dev/kmsg).  tb-run assembles the
 * testbed, seals off the host's /dev/kfd, /dev/dri and kernel log, and runs the
 * command under libumockdev-preload.
 *
 * Exit status: the command's own status, 128+N when it dies from signal N,
 * 2 for usage errors, 3 when a device file cannot be loaded, 4 for any other
 * failure while building the testbed.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <umockdev.h>

#define EXIT_USAGE 2
#define EXIT_DEVFILE 3
#define EXIT_SETUP 4

static void G_GNUC_NORETURN G_GNUC_PRINTF(2, 3) die(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("tb-run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(status);
}

static void usage(void)
{
    fputs("usage: tb-run [-d FILE.umockdev]... [-o OVERLAY_DIR] "
          "[--node DEVPATH:MODE:UID:GID]... -- CMD [ARGS...]\n",
          stderr);
    exit(EXIT_USAGE);
}

static void mkdirs(const char *path)
{
    if (g_mkdir_with_parents(path, 0755) != 0)
        die(EXIT_SETUP, "cannot create %s: %s", path, g_strerror(errno));
}

/* Copy one regular file, keeping its permission bits. */
static void copy_file(const char *src, const char *dst, mode_t mode)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        die(EXIT_SETUP, "cannot open %s: %s", src, g_strerror(errno));
    /* An overlay file replaces whatever the device records put there. */
    unlink(dst);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
    if (out < 0)
        die(EXIT_SETUP, "cannot create %s: %s", dst, g_strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                die(EXIT_SETUP, "cannot write %s: %s", dst, g_strerror(errno));
            }
            off += w;
        }
    }
    if (n < 0)
        die(EXIT_SETUP, "cannot read %s: %s", src, g_strerror(errno));
    close(in);
    if (close(out) != 0)
        die(EXIT_SETUP, "cannot write %s: %s", dst, g_strerror(errno));
}

/* Merge the tree at src into dst: directories are merged, files and symlinks
 * replace what is there.  Symlinks are copied as links (never followed), because
 * sysfs-style links such as driver -> ../../bus/pci/drivers/amdgpu must stay
 * relative to the testbed. */
static void copy_tree(const char *src, const char *dst)
{
    DIR *d = opendir(src);
    if (!d)
        die(EXIT_SETUP, "cannot read overlay directory %s: %s", src, g_strerror(errno));
    mkdirs(dst);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        g_autofree gchar *s = g_build_filename(src, e->d_name, NULL);
        g_autofree gchar *t = g_build_filename(dst, e->d_name, NULL);
        struct stat st;
        if (lstat(s, &st) != 0)
            die(EXIT_SETUP, "cannot stat %s: %s", s, g_strerror(errno));
        if (S_ISDIR(st.st_mode)) {
            struct stat tst;
            /* A link in the way (e.g. a device record's attribute link) would make
             * us write outside the intended place; replace it with a directory. */
            if (lstat(t, &tst) == 0 && !S_ISDIR(tst.st_mode))
                unlink(t);
            copy_tree(s, t);
        } else if (S_ISLNK(st.st_mode)) {
            g_autofree gchar *target = g_file_read_link(s, NULL);
            if (!target)
                die(EXIT_SETUP, "cannot read link %s", s);
            unlink(t);
            if (symlink(target, t) != 0)
                die(EXIT_SETUP, "cannot create link %s: %s", t, g_strerror(errno));
        } else if (S_ISREG(st.st_mode)) {
            copy_file(s, t, st.st_mode);
        } else {
            die(EXIT_SETUP, "overlay entry %s is neither file, directory nor link", s);
        }
    }
    closedir(d);
}

/* Apply --node DEVPATH:MODE:UID:GID to ROOT/DEVPATH.
 *
 * The testbed file of an emulated device node is a plain file; umockdev's stat()
 * wrapper reports it as a character device (numbers from ROOT/dev/.node) with
 * the file's own permission bits, uid and gid, and open() is checked against
 * them by the kernel.  So setting them on the file is all it takes. */
static void apply_node(const char *root, const char *spec)
{
    g_auto(GStrv) f = g_strsplit(spec, ":", -1);
    if (g_strv_length(f) != 4)
        die(EXIT_USAGE, "--node wants DEVPATH:MODE:UID:GID, got '%s'", spec);
    char *end;
    unsigned long mode = strtoul(f[1], &end, 8);
    if (*f[1] == '\0' || *end || mode > 07777)
        die(EXIT_USAGE, "--node %s: bad octal mode '%s'", spec, f[1]);
    long uid = strtol(f[2], &end, 10);
    if (*f[2] == '\0' || *end || uid < 0)
        die(EXIT_USAGE, "--node %s: bad uid '%s'", spec, f[2]);
    long gid = strtol(f[3], &end, 10);
    if (*f[3] == '\0' || *end || gid < 0)
        die(EXIT_USAGE, "--node %s: bad gid '%s'", spec, f[3]);

    const char *rel = f[0];
    while (*rel == '/')
        rel++;
    g_autofree gchar *path = g_build_filename(root, rel, NULL);
    struct stat st;
    if (lstat(path, &st) != 0)
        die(EXIT_SETUP, "--node %s: %s does not exist in the testbed", spec, rel);
    if (chown(path, (uid_t)uid, (gid_t)gid) != 0)
        die(EXIT_SETUP, "--node %s: chown: %s", spec, g_strerror(errno));
    if (chmod(path, (mode_t)mode) != 0)
        die(EXIT_SETUP, "--node %s: chmod: %s", spec, g_strerror(errno));
}

/* Without a testbed entry, umockdev lets /dev paths through to the host; a
 * dangling link makes them look absent instead, whatever the host has. */
static void seal_dev_path(const char *root, const char *rel)
{
    g_autofree gchar *path = g_build_filename(root, rel, NULL);
    struct stat st;
    if (lstat(path, &st) == 0)
        return;
    g_autofree gchar *dir = g_path_get_dirname(path);
    mkdirs(dir);
    if (symlink("/nonexistent", path) != 0)
        die(EXIT_SETUP, "cannot create %s: %s", path, g_strerror(errno));
}

static void require_file(const char *root, const char *rel)
{
    g_autofree gchar *path = g_build_filename(root, rel, NULL);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        die(EXIT_SETUP,
            "the testbed has no /%s: the overlay must provide it "
            "(otherwise the host's file would be read)",
            rel);
}

/* umockdev serves ioctls of emulated devices through unix sockets under
 * ROOT/ioctl, created with the testbed owner's umask.  A process of another uid
 * that opens a device node must be able to connect to them, or the preload
 * library aborts the process: make the sockets world-writable.  Access to the
 * node itself is still decided by the node's own mode and owner. */
static void open_ioctl_sockets(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        g_autofree gchar *p = g_build_filename(dir, e->d_name, NULL);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            open_ioctl_sockets(p);
        else if (S_ISSOCK(st.st_mode) && chmod(p, 0777) != 0)
            die(EXIT_SETUP, "cannot chmod %s: %s", p, g_strerror(errno));
    }
    closedir(d);
}

/* NAME=FIRST[SEP OLD]: put our value in front of whatever the caller set. */
static void prepend_env(const char *name, const char *first, const char *sep)
{
    const char *old = g_getenv(name);
    g_autofree gchar *v = (old && *old) ? g_strconcat(first, sep, old, NULL) : g_strdup(first);
    g_setenv(name, v, TRUE);
}

/* The options before "--"; returns the index of the command. */
static int parse_args(int argc, char **argv, GPtrArray *devfiles, GPtrArray *nodes, const char **overlay)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-d") == 0 || strcmp(a, "--device") == 0) {
            if (++i >= argc)
                usage();
            g_ptr_array_add(devfiles, argv[i]);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--overlay") == 0) {
            if (++i >= argc)
                usage();
            *overlay = argv[i];
        } else if (strcmp(a, "--node") == 0) {
            if (++i >= argc)
                usage();
            g_ptr_array_add(nodes, argv[i]);
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
        } else {
            fprintf(stderr, "tb-run: unknown argument '%s'\n", a);
            usage();
        }
    }
    if (i >= argc)
        usage();
    return i;
}

/* The testbed's tree under root: the device files, the overlay, the
 * /dev and /proc files every run needs, the nodes and the ioctl sockets. */
static void fill_testbed(UMockdevTestbed *tb, const char *root, GPtrArray *devfiles, GPtrArray *nodes,
                         const char *overlay)
{
    g_autofree gchar *sys = umockdev_testbed_get_sys_dir(tb);

    /* libpci's sysfs back end gives up when this directory is missing, and a
     * machine without PCI devices still has it. */
    g_autofree gchar *pcidevs = g_build_filename(sys, "bus/pci/devices", NULL);
    mkdirs(pcidevs);

    for (guint k = 0; k < devfiles->len; k++) {
        const char *file = g_ptr_array_index(devfiles, k);
        g_autoptr(GError) err = NULL;
        if (!umockdev_testbed_add_from_file(tb, file, &err))
            die(EXIT_DEVFILE, "cannot load %s: %s", file, err ? err->message : "unknown error");
    }

    if (overlay)
        copy_tree(overlay, root);

    seal_dev_path(root, "dev/kfd");
    seal_dev_path(root, "dev/dri");
    g_autofree gchar *kmsg = g_build_filename(root, "dev/kmsg", NULL);
    if (!g_file_test(kmsg, G_FILE_TEST_EXISTS)) {
        /* An empty kernel log: the host's must never be read. */
        g_autofree gchar *devdir = g_path_get_dirname(kmsg);
        mkdirs(devdir);
        if (!g_file_set_contents(kmsg, "", 0, NULL))
            die(EXIT_SETUP, "cannot create %s", kmsg);
    }
    require_file(root, "proc/cmdline");
    require_file(root, "proc/sys/kernel/osrelease");
    require_file(root, "proc/version");

    for (guint k = 0; k < nodes->len; k++)
        apply_node(root, g_ptr_array_index(nodes, k));

    g_autofree gchar *ioctl_dir = g_build_filename(root, "ioctl", NULL);
    open_ioctl_sockets(ioctl_dir);

    /* The testbed directory is created 0700; scenarios that drop to an
     * ordinary uid must still be able to walk into it. */
    if (chmod(root, 0755) != 0)
        die(EXIT_SETUP, "cannot chmod %s: %s", root, g_strerror(errno));
}

/* Runs cmd and waits for it; returns its wait status. */
static int run_child(char **cmd)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die(EXIT_SETUP, "fork: %s", g_strerror(errno));
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "tb-run: cannot run %s: %s\n", cmd[0], g_strerror(errno));
        _exit(127);
    }

    /* The parent must outlive the child: the testbed's socket emulation threads
     * run here, and without them the child cannot open the /dev files. */
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            die(EXIT_SETUP, "waitpid: %s", g_strerror(errno));
    }
    return status;
}

/* umockdev builds the testbed under TMPDIR, a few thousand files for the
 * 8-GPU beds; on a disk file system that takes half of a run's time. Build
 * it in /dev/shm where that is a writable tmpfs with room to spare (64 MiB
 * per bed, 512 MiB free), and give the command the caller's TMPDIR back.
 * Returns the caller's TMPDIR (NULL when unset). */
#define TB_SHM "/dev/shm"
#define TB_SHM_FREE_MIN (512ULL << 20)
static gchar *testbed_on_tmpfs(void)
{
    gchar *old = g_strdup(g_getenv("TMPDIR"));
    struct statvfs sv;
    if (statvfs(TB_SHM, &sv) == 0 && access(TB_SHM, W_OK | X_OK) == 0 &&
        (unsigned long long)sv.f_bavail * sv.f_frsize >= TB_SHM_FREE_MIN)
        g_setenv("TMPDIR", TB_SHM, TRUE);
    return old;
}

static void restore_tmpdir(const gchar *old)
{
    if (old)
        g_setenv("TMPDIR", old, TRUE);
    else
        g_unsetenv("TMPDIR");
}

int main(int argc, char **argv)
{
    g_autoptr(GPtrArray) devfiles = g_ptr_array_new();
    g_autoptr(GPtrArray) nodes = g_ptr_array_new();
    const char *overlay = NULL;
    char **cmd = argv + parse_args(argc, argv, devfiles, nodes, &overlay);

    g_autofree gchar *tmpdir = testbed_on_tmpfs();
    UMockdevTestbed *tb = umockdev_testbed_new();
    g_autofree gchar *root = umockdev_testbed_get_root_dir(tb);
    fill_testbed(tb, root, devfiles, nodes, overlay);
    restore_tmpdir(tmpdir);

    prepend_env("LD_PRELOAD", "libumockdev-preload.so.0", ":");
    /* ASan insists on being first in the library list; the preload breaks that. */
    prepend_env("ASAN_OPTIONS", "verify_asan_link_order=0", ":");
    int status = run_child(cmd);

    /* Disposing of the testbed removes its temporary directory. */
    g_object_unref(tb);

    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return EXIT_SETUP;
}
