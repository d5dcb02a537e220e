#!/usr/bin/env python3
"""Runs numba-cuda's own tests (numba/cuda/tests: cudapy, cudadrv and doc_examples, from the installed numba-cuda)
against gpujit.

    python tests/compat/run.py                       # every module on gpujit, the table printed
    python tests/compat/run.py --impl both           # the same and numba-cuda itself, in the same run (GPU)
    python tests/compat/run.py -m test_atomics -m test_math --failures 20
    python tests/compat/run.py --suite doc_examples -m cudadrv.test_pinned
    python tests/compat/run.py --check               # CI: fail if gpujit passes fewer than floor.json says

A module is named as numba-cuda's test ids name it: a cudapy module by its own name (test_atomics), a module of
the other folders with the folder in front (cudadrv.test_pinned, doc_examples.test_vecadd).
Each module runs in a process of its own (pytest with the plugin numba_on_gpujit.py, which turns on gpujit's
drop-in mode, gpujit.install_numba_shim(), as the only binding of numba.cuda's user-facing API to gpujit), under a
time limit; a module that hangs or crashes keeps the outcomes of the tests
it finished and its other collected tests count as lost. The tests are never copied here: they are read from
the numba-cuda package that is installed.

What is counted (docs/compat.md explains why):
- In scope: every test but those scope.py lists as checking numba's internals.
- The yardstick: numba-cuda's own outcome for the same test. With `--impl both` (on a GPU machine) it is
  measured in the same run; otherwise it is read from numba_reference.json, which such a run wrote
  (`--write-reference`). A test numba-cuda itself does not pass is not counted against gpujit.
- On a machine with no GPU, kernels run on gpujit's CPU backend, and the tests scope.py marks as needing a
  real GPU (IPC, several devices, the driver's own objects) are left out of the ratio.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scope  # noqa: E402

PACKAGE = "numba.cuda.tests"
# numba-cuda's test folders a user's program is measured by: the kernel language and its host API (cudapy, whose
# modules keep their bare names), the driver-level host API (device arrays, memory, streams, events, devices), and
# the programs of numba-cuda's documentation.
SUITES = ("cudapy", "cudadrv", "doc_examples")


def installed_modules(suites=SUITES):
    """The test modules of the installed numba-cuda's test folders, by name (see the docstring)."""
    import importlib.util

    spec = importlib.util.find_spec("numba.cuda")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("numba-cuda is not installed in this Python (pip install numba-cuda); scripts/setup installs it")
    tests = Path(list(spec.submodule_search_locations)[0]) / "tests"
    modules = []
    for suite in suites:
        prefix = "" if suite == "cudapy" else suite + "."
        modules += sorted(prefix + p.stem for p in (tests / suite).glob("test_*.py"))
    return modules


def module_path(module):
    """The dotted name pytest imports a module by: test_atomics -> numba.cuda.tests.cudapy.test_atomics."""
    return f"{PACKAGE}.{module}" if "." in module else f"{PACKAGE}.cudapy.{module}"


def numba_cuda_version():
    try:
        from importlib.metadata import version

        return version("numba-cuda")
    except Exception:
        return "unknown"


def run_module(module, impl, timeout, workdir):
    """Runs one module in its own process; returns {test id: (outcome, message)} and a note on the process."""
    results = Path(workdir) / f"{module}.{impl}.jsonl"
    results.unlink(missing_ok=True)
    env = dict(os.environ)
    env["GPUJIT_COMPAT_RESULTS"] = str(results)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    env.setdefault("OMP_NUM_THREADS", "1")
    plugin = "numba_on_gpujit" if impl == "gpujit" else "numba_native"
    if impl == "gpujit":
        env["GPUJIT_COMPAT_BIND"] = "1"  # processes the tests spawn bind to gpujit too (sitecustomize.py)
    # consider_namespace_packages: the test modules get their real names (numba.cuda.tests...), which a
    # process the test spawns can import; numba_cuda/numba is a namespace package.
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", plugin, "-p", "no:cacheprovider", "-p", "no:randomly",
           "--import-mode=importlib", "-o", "consider_namespace_packages=true", "--rootdir", str(workdir),
           "--pyargs", module_path(module)]
    start = time.monotonic()
    note = ""
    try:
        proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode not in (0, 1, 5):
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            note = f"exit {proc.returncode}: " + " | ".join(tail)[:300]
    except subprocess.TimeoutExpired:
        note = f"timed out after {timeout} s"
    seconds = time.monotonic() - start
    collected, outcomes = [], {}
    if results.exists():
        for line in results.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "collected" in rec:
                collected = rec["collected"]
                continue
            outcomes.setdefault(rec["id"], []).append(rec)
    tests = {}
    for test_id in dict.fromkeys(collected + list(outcomes)):
        recs = outcomes.get(test_id)
        tests[normalise(module, test_id)] = reduce_outcome(recs) if recs else ("lost", note or "never reported")
    return tests, note, seconds


def normalise(module, nodeid):
    """A pytest node id ('<path>::TestX::test_y', however pytest spells the path) -> 'test_x::TestX::test_y'."""
    return f"{module}::{nodeid.partition('::')[2]}"


# unittest's report of a test marked expectedFailure whose body passed. numba-cuda marks so the behaviour it
# does not have yet (unsafe argument conversions to an explicit signature): an implementation that has it does
# what the test asks, so it counts as passed, as the expected failure counts for numba-cuda.
UNEXPECTED_SUCCESS = "Failed: Unexpected success"


def reduce_outcome(recs):
    """One outcome from a test's reports (setup, call, teardown): a failure anywhere fails it."""
    for rec in recs:
        if rec["outcome"] == "failed" and rec["message"] != UNEXPECTED_SUCCESS:
            return "failed", rec["message"]
    if any(rec["message"] == UNEXPECTED_SUCCESS for rec in recs):
        return "passed", "unexpected success of a test numba-cuda expects to fail"
    for rec in recs:
        if rec["outcome"] == "skipped":
            return "skipped", rec["message"]
    if any(rec["outcome"] == "xfailed" for rec in recs):
        return "passed", "expected failure"
    return "passed", ""


def passed(outcome):
    return outcome is not None and outcome[0] == "passed"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=("gpujit", "numba", "both"), default="gpujit")
    ap.add_argument("-m", "--module", action="append",
                    help="a module (test_atomics, cudadrv.test_pinned); repeatable; default all of --suite")
    ap.add_argument("--suite", action="append", choices=SUITES,
                    help="a test folder of numba-cuda's; repeatable; default all three")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per module and implementation")
    ap.add_argument("--out", help="folder for results.json and the per-test outcomes (default: a temporary one)")
    ap.add_argument("--reference", default=str(HERE / "numba_reference.json"),
                    help="numba-cuda's outcomes on a GPU, used when numba-cuda is not run here")
    ap.add_argument("--write-reference", action="store_true", help="store numba-cuda's outcomes (--impl both)")
    ap.add_argument("--failures", type=int, default=25, help="show the N most frequent first lines of failures")
    ap.add_argument("--list-failures", action="store_true", help="list every in-scope test gpujit fails")
    ap.add_argument("--check", action="store_true", help="exit 1 if gpujit passes fewer tests than floor.json")
    args = ap.parse_args()

    # numba-cuda's ids name a cudapy module without its folder: cudapy.test_atomics is test_atomics.
    modules = [m.removeprefix("cudapy.") for m in args.module or []] or installed_modules(args.suite or SUITES)
    impls = ["gpujit", "numba"] if args.impl == "both" else [args.impl]
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gpujit-compat-"))
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    work.mkdir(exist_ok=True)

    import gpujit

    backend = gpujit._core.backend_name()
    print(f"[compat] numba-cuda {numba_cuda_version()}, {len(modules)} modules, {', '.join(impls)}, "
          f"gpujit on {backend}, {args.jobs} jobs, results in {out}", flush=True)

    results = {impl: {} for impl in impls}
    notes = collections.defaultdict(dict)
    seconds = collections.defaultdict(float)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_module, m, impl, args.timeout, work): (m, impl) for m in modules for impl in impls}
        for fut in concurrent.futures.as_completed(futures):
            module, impl = futures[fut]
            tests, note, secs = fut.result()
            results[impl].update(tests)
            if note:
                notes[module][impl] = note
            seconds[module] += secs
            counts = collections.Counter(o for o, _ in tests.values())
            print(f"[compat] {impl:6} {module:40} {counts['passed']:4} passed {counts['failed']:4} failed "
                  f"{counts['skipped']:4} skipped {secs:6.1f} s {note}", flush=True)

    reference = results.get("numba")
    reference_source = "this run" if reference is not None else None
    if reference is None and Path(args.reference).exists():
        data = json.loads(Path(args.reference).read_text())
        reference = {k: tuple(v) for k, v in data["tests"].items()}
        reference_source = f"{Path(args.reference).name} ({data.get('device', 'a GPU')}, numba-cuda {data.get('numba_cuda')})"
    if args.write_reference and "numba" in results:
        write_reference(Path(args.reference), results["numba"])
        print(f"[compat] wrote {args.reference}")

    report = summarise(modules, results.get("gpujit", {}), reference, backend)
    print_report(report, reference_source, notes, args.failures, args.list_failures)
    (out / "results.json").write_text(json.dumps({"report": report, "gpujit": results.get("gpujit"),
                                                  "numba": results.get("numba")}, indent=1))
    if args.check:
        floor = json.loads((HERE / "floor.json").read_text())[backend]
        got = report["total"].get("passed", 0)
        if got < floor:
            print(f"[compat] FAILED: gpujit passes {got} tests on {backend}, fewer than the floor of {floor} "
                  "(tests/compat/floor.json); the lists above show which", file=sys.stderr)
            return 1
        print(f"[compat] gpujit passes {got} tests on {backend} (floor {floor})")
    return 0


def write_reference(path, outcomes):
    """numba-cuda's outcomes as JSON, one test a line, so that a new run's diff reads test by test."""
    lines = [f"  {json.dumps(k)}: {json.dumps(list(v))}" for k, v in sorted(outcomes.items())]
    head = json.dumps({"numba_cuda": numba_cuda_version(), "device": device_name()})[1:-1]
    path.write_text("{" + head + ', "tests": {\n' + ",\n".join(lines) + "\n}}\n")


def device_name():
    try:
        import gpujit

        return gpujit.get_current_device().name
    except Exception:
        return "unknown"


def summarise(modules, mine, reference, backend):
    """Per module: tests, out of scope, the yardstick (numba's passes in scope) and gpujit's passes of it."""
    rows = {}
    total = collections.Counter()
    failures = collections.Counter()
    failed_tests = []
    for module in modules:
        row = collections.Counter()
        ids = [t for t in mine if t.startswith(module + "::")]
        if reference is not None:
            ids = list(dict.fromkeys(ids + [t for t in reference if t.startswith(module + "::")]))
        for test in ids:
            row["tests"] += 1
            out = mine.get(test)
            if passed(out):
                row["gpujit_passed"] += 1
            why = scope.out_of_scope(test)
            if why:
                row["out_of_scope"] += 1
                continue
            if scope.later(test):
                row["later"] += 1
                if passed(out) and (reference is None or passed(reference.get(test))):
                    row["later_passed"] += 1
                if reference is None or passed(reference.get(test)):
                    row["later_yardstick"] += 1
                continue
            if backend == "cpu" and scope.needs_gpu(test):
                row["needs_gpu"] += 1
                continue
            if reference is not None and not passed(reference.get(test)):
                continue  # numba-cuda itself does not pass it: not a gap of ours
            if reference is None and out is not None and out[0] == "skipped":
                continue
            row["yardstick"] += 1
            if passed(out):
                row["passed"] += 1
            else:
                kind, message = out if out else ("missing", "not run")
                failures[message.split("\n")[0][:120]] += 1
                failed_tests.append((test, kind, message))
        rows[module] = dict(row)
        total.update(row)
    return {"modules": rows, "total": dict(total), "failures": failures.most_common(),
            "failed_tests": failed_tests}


def print_report(report, reference_source, notes, top, list_all):
    print(f"\n{'module':40} {'tests':>6} {'out':>5} {'later':>5} {'gpu':>5} {'yard':>6} {'pass':>6} {'ratio':>6}")
    for module, row in report["modules"].items():
        yard, ok = row.get("yardstick", 0), row.get("passed", 0)
        ratio = f"{ok / yard:6.0%}" if yard else "     -"
        note = "  " + "; ".join(f"{k}: {v}" for k, v in notes.get(module, {}).items()) if notes.get(module) else ""
        print(f"{module:40} {row.get('tests', 0):6} {row.get('out_of_scope', 0):5} {row.get('later', 0):5} "
              f"{row.get('needs_gpu', 0):5} "
              f"{yard:6} {ok:6} {ratio}{note}")
    t = report["total"]
    yard, ok = t.get("yardstick", 0), t.get("passed", 0)
    print(f"{'total':40} {t.get('tests', 0):6} {t.get('out_of_scope', 0):5} {t.get('later', 0):5} "
          f"{t.get('needs_gpu', 0):5} {yard:6} "
          f"{ok:6} {ok / max(yard, 1):6.1%}")
    by_suite = collections.defaultdict(collections.Counter)
    for module, row in report["modules"].items():
        by_suite[module.split(".")[0] if "." in module else "cudapy"].update(row)
    for suite, row in by_suite.items():
        s_yard, s_ok = row.get("yardstick", 0), row.get("passed", 0)
        print(f"  {suite:14} gpujit passes {s_ok} of {s_yard} in-scope tests numba-cuda passes "
              f"({s_ok / max(s_yard, 1):.1%}); owned by later issues {row.get('later_passed', 0)} of "
              f"{row.get('later_yardstick', 0)}")
    print(f"\nyardstick: in-scope tests numba-cuda passes, from {reference_source}" if reference_source else
          "\nyardstick: every in-scope test gpujit runs and does not skip (no numba-cuda reference)")
    print(f"gpujit passes {ok} of {yard} in-scope tests ({ok / max(yard, 1):.1%}); "
          f"{t.get('gpujit_passed', 0)} tests in all")
    later_yard, later_ok = t.get("later_yardstick", 0), t.get("later_passed", 0)
    print(f"owned by later issues (scope.LATER, counted apart): gpujit passes {later_ok} of {later_yard} "
          f"({later_ok / max(later_yard, 1):.1%}); with them, {ok + later_ok} of {yard + later_yard} "
          f"({(ok + later_ok) / max(yard + later_yard, 1):.1%})")
    if top:
        print(f"\nmost frequent first lines of the in-scope failures:")
        for message, count in report["failures"][:top]:
            print(f"{count:5}  {message}")
    if list_all:
        print("\nin-scope failures:")
        for test, kind, message in report["failed_tests"]:
            print(f"  {test}: {kind}: {message[:200]}")


if __name__ == "__main__":
    sys.exit(main())
