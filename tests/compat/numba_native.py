"""The part of the compatibility plugin that numba-cuda's own run needs too (tests/compat/run.py).

- NumPy 2.5 removed names numba still uses (`np.row_stack`, `np.trapz`, `np.in1d`); they are put back as the
  aliases they were, before numba is imported.
- numba-cuda's test base class asks for the fixture `initialize_from_pytest_config`, which numba-cuda's own
  conftest defines and its wheel does not ship. Here it sets the one attribute that fixture sets, to its
  default: `_dump_failed_filechecks` False (no --dump-failed-filechecks), which assertFileCheckMatches reads
  when a FileCheck fails; without it a FileCheck mismatch reads as an AttributeError.
"""

import json
import os

import numpy as _np
import pytest

for _old, _new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    if not hasattr(_np, _old) and hasattr(_np, _new):
        setattr(_np, _old, getattr(_np, _new))


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False
    yield


# Each test's outcome, one JSON line as it finishes, in the file tests/compat/run.py names: a module that
# hangs or crashes keeps what it finished, and the tests collected but never reported count as lost.
_RESULTS = None


def _results():
    global _RESULTS
    path = os.environ.get("GPUJIT_COMPAT_RESULTS")
    if _RESULTS is None and path:
        _RESULTS = open(path, "a", buffering=1)
    return _RESULTS


def _write(record):
    out = _results()
    if out is not None:
        out.write(json.dumps(record) + "\n")


def pytest_collection_finish(session):
    _write({"collected": [item.nodeid for item in session.items]})


def _first_line(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        text = crash.message
    elif isinstance(report.longrepr, tuple):  # a skip: (file, line, reason)
        text = report.longrepr[2]
    else:
        text = str(report.longrepr or "")
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        if report.when == "teardown" and outcome == "passed":
            return
        _write({"id": report.nodeid, "outcome": outcome, "when": report.when,
                "message": "" if report.outcome == "passed" else _first_line(report)})
