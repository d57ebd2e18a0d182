#!/usr/bin/env python3
"""Interrupts of tdmaps-nbody under mpirun leave no temporary file behind.

Usage: TDMAPS_TEST_MPIRUN=mpirun test_interrupts.py PATH/TO/tdmaps-nbody

mpirun -n 2 runs with --save-input and --snapshots (rank 0 writes both
through app::OutputFile) are sent SIGINT at delays that step from the
moment the saved input appears (the snapshots' temporary file is created
right after it) to past the end of the run (the snapshots' commit), on both
temporary-file paths (O_TMPFILE and the named fallback,
TDMAPS_NO_O_TMPFILE=1), half of them with mpirun's SIGKILL sent at once
after its SIGTERM (odls_base_sigkill_timeout 0: no signal handler can
clean up, the rank's watchdog must), half with its default grace. After
every try the folder holds no "*.tmp.*" file, and each output is absent or
complete.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import clitest  # noqa: E402
from clitest import check  # noqa: E402

TRIES = 20
N, STEPS, EVERY = 200, 100, 10


def main():
    exe = clitest.tool_argument("usage: TDMAPS_TEST_MPIRUN=mpirun test_interrupts.py PATH/TO/tdmaps-nbody")
    mpirun = os.environ.get("TDMAPS_TEST_MPIRUN", "")
    if not mpirun:
        print("test_interrupts.py: TDMAPS_TEST_MPIRUN (the mpirun to test under) is not set")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        # Try 0 runs to the end: how long a run takes after its saved input appears.
        span = None
        for k in range(TRIES + 1):
            named = k % 2 == 1
            grace = k % 4 < 2  # mpirun's default SIGKILL grace, or none
            d = os.path.join(tmp, f"t{k}")
            os.mkdir(d)
            extra = dict(clitest.MPIRUN_ENV)
            if named:
                extra["TDMAPS_NO_O_TMPFILE"] = "1"
            if not grace:
                extra["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
            argv = clitest.mpirun_argv(mpirun) + ["-n", "2", exe, "--plummer", N, "--softening", "0.01", "--steps",
                                                  STEPS, "--dt", "1e-4", "--every", EVERY, "--save-input",
                                                  os.path.join(d, "g.npy"), "--snapshots", os.path.join(d, "s.npy")]
            p = subprocess.Popen([str(a) for a in argv], env=clitest.env_with(extra), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
            t0 = time.monotonic()
            while not os.path.exists(os.path.join(d, "g.npy")) and p.poll() is None and time.monotonic() - t0 < 60:
                time.sleep(0.0005)
            started = time.monotonic()
            if k == 0:
                _, err = p.communicate(timeout=120)
                span = time.monotonic() - started
                check(p.returncode == 0, f"the uninterrupted run ({span:.2f} s after its saved input)", err)
                continue
            # Delays from 0 to 1.2 times the run: mid-creation, mid-run, at the commit, after the end.
            delay = 1.2 * span * (k - 1) / (TRIES - 1)
            while time.monotonic() - started < delay:
                pass
            p.send_signal(signal.SIGINT)
            try:
                _, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
                check(False, f"try {k}: mpirun still running 60 s after SIGINT", err)
            time.sleep(0.2)  # a watchdog removes the file once its rank is gone
            left = sorted(os.listdir(d))
            stray = [f for f in left if ".tmp." in f]
            whole = True
            for name, shape in (("g.npy", (N, 7)), ("s.npy", (STEPS // EVERY + 1, N, 3))):
                if name in left:
                    try:
                        whole = whole and np.load(os.path.join(d, name)).shape == shape
                    except ValueError:
                        whole = False
            check(not stray and whole and set(left) <= {"g.npy", "s.npy"},
                  f"try {k} ({'named' if named else 'O_TMPFILE'} temporary, "
                  f"{'default grace' if grace else 'SIGKILL at once'}, SIGINT {delay:.3f} s in): left {left}",
                  err.strip()[-300:])
    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
