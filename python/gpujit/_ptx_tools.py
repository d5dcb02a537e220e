"""What the CUDA toolkit's command-line tools say of a kernel's PTX: its SASS, the SASS's control-flow graph, and
the resources ptxas gives it (registers, shared, local and constant memory).

These serve introspection only (inspect_sass, inspect_sass_cfg, the per-kernel resource figures), so re,
shutil, subprocess and tempfile are imported by the functions that use them, not by `import gpujit`
(benchmarks/import_time.py): they cost milliseconds at every start.

Layer "base" of the Python package: imports nothing of the package.
"""

import os
import sys

# The first function a device function's PTX defines: `.visible .func (.param ...) NAME(`.
_PTX_FUNC = r"^\.visible\s+\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)"

# Bytes per element of a PTX variable's type suffix (.b8, .u32, .f64 ...).
_CONST_DECL = (r"^\s*(?:\.visible\s+|\.global\s+)?\.const\s+(?:\.align\s+\d+\s+)?\.[bsuf](\d+)\s+"
               r"[^\s\[;=]+((?:\[\d+\])*)")


def ptx_arch(ptx):
    """The architecture a PTX module targets (`.target sm_90a`), sm_80 where it names none."""
    import re

    m = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    return m.group(1) if m else "sm_80"


def ptx_function_name(ptx):
    """The name of the first function a device function's PTX defines."""
    import re

    m = re.search(_PTX_FUNC, ptx, re.M)
    if m is None:
        raise RuntimeError("the device function's PTX defines no function")
    return m.group(1)


def find_ptxas():
    """The toolkit's ptxas: under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda, else on the PATH."""
    import shutil

    for folder in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if folder and os.path.isfile(os.path.join(folder, "bin", "ptxas")):
            return os.path.join(folder, "bin", "ptxas")
    found = shutil.which("ptxas")
    if found is None:
        raise NotImplementedError("a kernel's resource figures (registers, shared, local and constant memory) "
                                  "and its SASS are read through `ptxas`, and no ptxas was found: install the "
                                  "CUDA toolkit or set CUDA_HOME")
    return found


def find_nvdisasm():
    """nvdisasm: $GPUJIT_NVDISASM, the toolkit's (next to ptxas, $CUDA_HOME, /usr/local/cuda), the PATH's, or
    the nvidia-cuda-nvdisasm pip wheel's (site-packages/nvidia/cu13/bin); None where there is none."""
    import shutil

    candidates = [os.environ.get("GPUJIT_NVDISASM", "")]
    for home in (os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        if home:
            candidates.append(os.path.join(home, "bin", "nvdisasm"))
    candidates.append(shutil.which("nvdisasm") or "")
    candidates += [os.path.join(p, "nvidia", sub, "bin", "nvdisasm") for p in sys.path if p
                   for sub in ("cu13", "cu12")]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def _run_on_cubin(ptx, tool_args, what, ptxas_args=()):
    """Compiles `ptx` for its target with ptxas and runs `tool_args + [cubin]` on the cubin; its stdout.
    With an empty `tool_args`, the output of ptxas itself (`ptxas_args` such as -v add to it)."""
    import subprocess
    import tempfile

    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory(prefix="gpujit-ptxas-") as folder:
        source, cubin = os.path.join(folder, "kernel.ptx"), os.path.join(folder, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, *ptxas_args, f"-arch={ptx_arch(ptx)}", source, "-o", cubin],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"ptxas could not compile the kernel's PTX to {what}:\n{proc.stdout}{proc.stderr}")
        if not tool_args:
            return proc.stdout + proc.stderr
        proc = subprocess.run([*tool_args, cubin], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(tool_args[0])} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def sass_of(ptx):
    """SASS for the one kernel of `ptx`: ptxas for its target, then cuobjdump (or nvdisasm where the toolkit
    has no cuobjdump)."""
    import shutil

    tool = os.path.join(os.path.dirname(find_ptxas()), "cuobjdump")
    if not os.path.isfile(tool):
        tool = shutil.which("cuobjdump") or find_nvdisasm()
    if tool is None:
        raise RuntimeError("SASS is read with cuobjdump or nvdisasm (CUDA toolkit), and neither was found "
                           "(nvdisasm was not found: install the CUDA toolkit or `pip install nvidia-cuda-nvdisasm`)")
    args = [tool, "-sass"] if os.path.basename(tool) == "cuobjdump" else [tool]
    return _run_on_cubin(ptx, args, "disassemble it")


def sass_cfg_of(ptx):
    """The control-flow graph of the SASS of the one kernel of `ptx`, as Graphviz DOT text (`nvdisasm -cfg`,
    numba's inspect_sass_cfg)."""
    tool = find_nvdisasm()
    if tool is None:
        raise RuntimeError("inspect_sass_cfg() reads the control-flow graph with nvdisasm, and nvdisasm was not "
                           "found: install the CUDA toolkit, `pip install nvidia-cuda-nvdisasm`, or set "
                           "GPUJIT_NVDISASM")
    return _run_on_cubin(ptx, [tool, "-cfg"], "draw its control-flow graph")


def resource_figures(ptx):
    """Registers, shared, local and constant bytes and the largest block of the one kernel in `ptx`."""
    import re

    report = _run_on_cubin(ptx, [], "read its resources", ptxas_args=("-v",))
    entry = report[report.find("Compiling entry function"):]

    def number(pattern):
        m = re.search(pattern, entry)
        return int(m.group(1)) if m else 0

    regs = number(r"Used (\d+) registers")
    const = 0
    for bits, dims in re.findall(_CONST_DECL, ptx, re.M):
        count = 1
        for d in re.findall(r"\d+", dims):
            count *= int(d)
        const += int(bits) // 8 * count
    per_warp = -(-regs * 32 // 256) * 256
    max_threads = min(1024, 65536 // per_warp * 32) if regs else 1024
    bound = re.search(r"^\s*\.maxntid\s+([\d,\s]+)$", ptx, re.M)
    if bound:
        limit = 1
        for d in re.findall(r"\d+", bound.group(1)):
            limit *= int(d)
        max_threads = min(max_threads, limit)
    return {"regs": regs, "shared": number(r"(\d+) bytes smem"), "local": number(r"(\d+) bytes stack frame"),
            "const": const, "max_threads": max_threads}
