"""`import gpujit`'s start-up cost, against bare Python and against NumPy, in fresh processes.

    python benchmarks/import_time.py [--n 21] [--python PYTHON]

Runs `python -c pass`, `python -c 'import numpy'` and `python -c 'import gpujit'` N times each, interleaved
(one of each per round, so a change in the machine's load touches all three alike), each in a fresh process,
and prints the median wall time of each and gpujit's cost over bare Python. `import gpujit` imports no NumPy
(the binding imports it when an array first needs it), so NumPy's own cost is printed apart and not counted.
The target (issue 31): gpujit over bare Python at most 20 ms. It then lists the modules `import gpujit` loads
beyond bare Python's, which is where a regression shows first: a standard-library module imported at the top
of a package module where a function could import it when first called.

`python -X importtime -c 'import gpujit'` gives the tree of one import, module by module.
"""
import argparse
import statistics
import subprocess
import sys
import time

STATEMENTS = {"bare python": "pass", "import numpy": "import numpy", "import gpujit": "import gpujit"}
TARGET_MS = 20.0


def wall(python, statement):
    t = time.perf_counter()
    subprocess.run([python, "-c", statement], check=True)
    return (time.perf_counter() - t) * 1e3


def extra_modules(python):
    """The modules `import gpujit` adds to a bare interpreter's, the package's own left out."""
    probe = ("import sys; before = set(sys.modules); import gpujit; "
             "print(' '.join(sorted(m for m in set(sys.modules) - before if not m.startswith('gpujit'))))")
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=21, help="fresh processes per statement (default 21)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to time (default: this one)")
    args = parser.parse_args()
    if args.n < 1:
        parser.error("--n must be at least 1")
    times = {name: [] for name in STATEMENTS}
    for name, statement in STATEMENTS.items():  # one untimed run each: the file cache, not the import
        wall(args.python, statement)
    for _ in range(args.n):
        for name, statement in STATEMENTS.items():
            times[name].append(wall(args.python, statement))
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"{'statement':<16} {'median ms':>10} {'min ms':>8}   ({args.n} fresh processes each, interleaved)")
    for name in STATEMENTS:
        print(f"{name:<16} {medians[name]:>10.1f} {min(times[name]):>8.1f}")
    over = medians["import gpujit"] - medians["bare python"]
    print(f"gpujit over bare python: {over:+.1f} ms (target <= +{TARGET_MS:.0f} ms; numpy over bare python: "
          f"{medians['import numpy'] - medians['bare python']:+.1f} ms, counted apart)")
    extra = extra_modules(args.python)
    print(f"modules import gpujit loads beyond bare python's ({len(extra)}): {' '.join(extra) or '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
