"""Binds numba.cuda to gpujit in every Python process a compat test starts, not only in pytest's own.

A few of numba-cuda's tests start Python processes of their own (a multiprocessing pool with the 'spawn' start
method, which imports the test's module afresh in each worker). run.py sets GPUJIT_COMPAT_BIND=1 and puts this
folder on PYTHONPATH, so Python's site module imports this file at the start of each of those processes and
they run gpujit as the test's own process does, instead of numba-cuda's driver (which, with no GPU, fails in
every worker, and a pool whose workers die at start respawns them for ever).
"""

import os

if os.environ.get("GPUJIT_COMPAT_BIND") == "1":
    import numba_on_gpujit  # noqa: F401
