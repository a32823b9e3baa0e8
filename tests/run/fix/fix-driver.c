/* SPDX-License-Identifier: MIT */
/* Test driver for the plan's diff: prints the unified diff that a plan
 * shows for file A (before) turning into file B, so that test-engine.py can
 * compare it with exact cases and feed it to patch(1). Plans, policy and
 * findings are tested through rocm-doctor itself (rocm-doctor.conf under
 * the root, real scenarios).
 *
 *   fix-driver A B diff */
#include <fcntl.h>
#include "fix.h"
#include "util.h"

int main(int argc, char **argv)
{
    if (argc != 4 || !streq(argv[3], "diff")) {
        fprintf(stderr, "usage: fix-driver A B diff\n");
        return 3;
    }
    _cleanup_free_ char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int r = read_file_at(AT_FDCWD, argv[1], 1u << 24, &a, &na);
    if (r < 0) {
        fprintf(stderr, "fix-driver: %s: %s\n", argv[1], strerror(-r));
        return 3;
    }
    r = read_file_at(AT_FDCWD, argv[2], 1u << 24, &b, &nb);
    if (r < 0) {
        fprintf(stderr, "fix-driver: %s: %s\n", argv[2], strerror(-r));
        return 3;
    }
    _cleanup_free_ char *d = rd_unified_diff("file", a, na, true, b, nb, true);
    fputs(d, stdout);
    return fflush(stdout) == 0 ? 0 : 3;
}
