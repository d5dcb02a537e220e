"""Checks docs/reliability.md's tables against what the tests see.

A row of a checked table is `| what was tried | exception | message | test |`: the exception column names the
class in backticks, the message column is the message in backticks with every part that varies from run to run
(byte counts, device names, paths) written as <...>, and the test column names the test id in backticks.
check_row() finds the row of a test id in a section and asserts that the exception raised has that class (or a
subclass of it) and that its message matches the documented one, so the doc cannot drift from the code.
"""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"
_CELL = re.compile(r"`([^`]*)`")


def _section_rows(section):
    text = DOC.read_text()
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start:end if end >= 0 else len(text)]
    rows = {}
    for line in body.splitlines():
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| What"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4:
            raise AssertionError(f"docs/reliability.md, {section}: a row needs 4 cells: {line}")
        test_ids = _CELL.findall(cells[3])
        for test_id in test_ids:
            rows[test_id] = cells
    return rows


def pattern_of(documented):
    """The regular expression a documented message stands for: <...> matches any text."""
    parts = re.split(r"<[^>]*>", documented)
    return "".join(re.escape(p) + ("(?s:.+?)" if i + 1 < len(parts) else "") for i, p in enumerate(parts))


def check_row(section, test_id, exc):
    """Asserts that docs/reliability.md's row for `test_id` in `section` describes `exc`."""
    rows = _section_rows(section)
    assert test_id in rows, f"docs/reliability.md, section {section!r}, has no row for `{test_id}`"
    what, exc_cell, message_cell, _ = rows[test_id]
    classes = _CELL.findall(exc_cell)
    names = {cls.__name__ for cls in type(exc).__mro__}
    assert classes and any(c.split(".")[-1] in names for c in classes), (
        f"{test_id}: the doc says {exc_cell}, the test raised {type(exc).__name__}")
    messages = _CELL.findall(message_cell)
    assert messages, f"{test_id}: no message in backticks in the doc's row"
    actual = str(exc)
    assert any(re.fullmatch(pattern_of(m), actual) for m in messages), (
        f"{test_id}: the message\n  {actual}\nmatches none documented:\n  " + "\n  ".join(messages))
