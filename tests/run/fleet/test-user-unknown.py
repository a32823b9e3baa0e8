#!/usr/bin/env python3
"""A user named with --user (or in [check] users) who does not exist is said
in the text output, and the verdict does not claim their access passed.

    test-user-unknown.py ROCM_DOCTOR TB_RUN
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import fleetlib  # noqa: E402
import rdtest  # noqa: E402

BIN, TB_RUN = sys.argv[1:3]


@rdtest.test
def unknown_users_are_said():
    with fleetlib.Bed("healthy-rx7900xtx", BIN, TB_RUN) as bed:
        passwd = os.path.join(bed.root, "etc", "passwd")
        p = bed.run("check", "--color", "never", "--user", "nosuchuser")
        lines = [l for l in p.stdout.splitlines() if l]
        rdtest.check(p.returncode == 0, "exit 0: a healthy host (the status is the findings')", p.stderr)
        note = ('! Access to the GPUs not checked for nosuchuser (--user): user "nosuchuser" not found in %s' % passwd)
        text = " ".join(l.strip() for l in p.stdout.split("\n\n")[-2].splitlines()) if "\n\n" in p.stdout else ""
        rdtest.check(text == note,
                     "the text output names the user, where it came from and why",
                     "%r\nvs\n%r" % (text, note))
        rdtest.check(lines[-1] == "✓ ROCm's hardware and driver checks pass for 1 GPU; access was not checked.",
                     "the verdict says access was not checked",
                     lines[-1:])

        p = bed.run("check", "--color", "never")
        rdtest.check(p.stdout.splitlines()[-1] ==
                     "✓ ROCm's hardware, driver and access checks pass for 1 GPU.",
                     "without --user the usual verdict",
                     p.stdout[-300:])
        rdtest.check("not checked for" not in p.stdout, "and no note", p.stdout)

        os.makedirs(os.path.join(bed.root, "etc", "rocm-doctor"), exist_ok=True)
        with open(os.path.join(bed.root, "etc", "rocm-doctor", "rocm-doctor.conf"), "w") as f:
            f.write("[check]\nusers = ghost\n")
        p = bed.run("check", "--color", "never")
        rdtest.check("Access to the GPUs not checked for ghost (users in rocm-doctor.conf): user" in p.stdout.replace("\n  ", " "),
                     "a user of [check] users who does not exist is said too",
                     p.stdout)


sys.exit(rdtest.main())
