"""The per-module table of docs/compat.md, in Markdown, from a GPU run and a CPU run of run.py.

    python tests/compat/table.py GPU_OUT/compat/results.json CPU_OUT/results.json

GPU_OUT is what `scripts/gpu-test GPU_OUT --compat` (or --tests-and-compat) brought back: its results hold
numba-cuda's outcomes and gpujit's from the same H100 run. CPU_OUT is a `run.py --out CPU_OUT` folder from the
development machine; its gpujit outcomes are counted against the same numba-cuda outcomes, leaving out the
tests that need a GPU. A module whose in-scope tests numba-cuda passes none of is left out of the table.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  the same counting as run.py's report


def main(gpu_path, cpu_path):
    gpu = json.loads(Path(gpu_path).read_text())
    cpu = json.loads(Path(cpu_path).read_text())
    reference = {k: tuple(v) for k, v in gpu["numba"].items()}
    modules = sorted({t.split("::")[0] for t in reference} | {t.split("::")[0] for t in gpu["gpujit"]})
    on_gpu = run.summarise(modules, gpu["gpujit"], reference, "cuda")
    on_cpu = run.summarise(modules, cpu["gpujit"], reference, "cpu")
    print("| module | numba-cuda passes (H100) | gpujit, H100 | gpujit, CPU backend |")
    print("| --- | ---: | ---: | ---: |")
    for module in modules:
        g, c = on_gpu["modules"][module], on_cpu["modules"][module]
        if not g.get("yardstick"):
            continue
        cpu_cell = f"{c.get('passed', 0)} of {c.get('yardstick', 0)}" if c.get("yardstick") else "-"
        print(f"| {module} | {g['yardstick']} | {g.get('passed', 0)} | {cpu_cell} |")
    g, c = on_gpu["total"], on_cpu["total"]
    print(f"| **total** | **{g['yardstick']}** | **{g.get('passed', 0)}** ({g.get('passed', 0) / g['yardstick']:.1%}) "
          f"| **{c.get('passed', 0)} of {c['yardstick']}** ({c.get('passed', 0) / c['yardstick']:.1%}) |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
