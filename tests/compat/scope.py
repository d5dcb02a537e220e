"""Which of numba-cuda's tests measure gpujit, and which check numba's own internals.

Everything a numba-cuda user's program can touch is in scope: kernels, device functions, the launch, arrays,
streams, the dispatcher's public methods, the PTX it shows, the errors and warnings it gives, the extension API,
debug info, CUDA C linking. Out of scope are only the tests of numba's own IR and bytecode passes, of NVVM and
numba's driver object, and of its simulator: gpujit has its own compiler, so these tests say nothing of it.
LATER lists in-scope tests that a later issue of the tracker owns (none now); run.py counts them apart until
those land. docs/compat.md gives the same lists in
prose; `python tests/compat/run.py` applies them.

NEEDS_GPU lists tests that cannot mean anything on the CPU backend (IPC handles, several devices, the
driver's own memory): they count on a GPU machine and are left out of the CPU ratio.
"""

import re

# Whole modules, with the reason: numba's own IR and bytecode passes, and numba's compiler-debugging output.
MODULES = {
    "test_analysis": "numba's IR analysis passes (dead-branch pruning on numba IR)",
    "test_byteflow": "numba's bytecode flow analysis",
    "test_copy_propagate": "numba's IR copy propagation",
    "test_flow_control": "numba's bytecode control-flow graph",
    "test_ir": "numba's IR classes",
    "test_ir_utils": "numba's IR utilities",
    "test_ssa": "numba's SSA reconstruction pass and its logging",
    "test_typeinfer": "numba's type inference internals",
    "test_typeconv": "numba's type-conversion rules tables",
    "test_tracing": "numba's internal event tracing",
    "test_launch_config_sensitive": "numba's IR rewrite registry (register_rewrite)",
    "test_debug": "numba's NUMBA_DUMP_* compiler-debugging output (its bytecode, CFG, IR, LLVM IR, assembly dumps)",
    "cudadrv.test_nvvm_driver": "NVVM, the compiler numba's LLVM IR goes through (gpujit's goes through LLVM's NVPTX)",
    "cudadrv.test_inline_ptx": "llvmlite IR fed to NVVM by hand",
    "cudadrv.test_cuda_driver": "numba's own driver object (driver.cuModuleLoad..., its module and function wrappers)",
    "cudadrv.test_init": "numba's own driver object: its child processes patch numba's driver.cuInit and check how "
                         "numba's driver reports the failure",
}

# Single tests (module::Class::test, as a regular expression over that id), with the reason.
TESTS = [
    (r"test_compiler::.*numba_abi_has_env_global", "numba's NumbaEnv global, an internal of its calling convention"),
    (r"test_compiler::.*functioncompiler_locals", "numba's FunctionCompiler locals= typing"),
    (r"test_inline::.*costmodel", "numba's IR-level inliner cost model"),
    (r"::.*simulator|::.*cudasim", "numba's CUDA simulator"),
]

# In scope, but owned by a later issue of the tracker and counted apart until it lands (docs/compat.md). None now:
# CUDA C, cffi and LTO (issue 29) and the extension API, DWARF debug info and the bf16/fp8 bindings (issue 30)
# count in scope since 2026-12-02. An entry is "module": "issue: what", or (regex over the test id, "issue: what").
LATER_MODULES = {}
LATER_TESTS = []

# Tests that need a real GPU: they count on a GPU machine, not on the CPU backend.
NEEDS_GPU = [
    (r"test_ipc::", "CUDA IPC handles between processes"),
    (r"cudadrv\.test_emm_plugins::", "External Memory Management plugins allocate CUDA device memory; the CPU "
     "backend keeps its own allocator, as numba's simulator has no EMM"),
    (r"test_multigpu::", "several devices"),
    (r"cudadrv\.test_context_stack::(TestContextLeak|Test3rdPartyContext)::", "CUDA contexts made and counted "
     "through the driver, which the CPU backend has not"),
    (r"cudadrv\.test_reset_device::", "resetting a CUDA device"),
    (r"test_multiprocessing::.*test_fork", "a process forked after the CUDA driver was initialized in its "
     "parent; the CPU backend initializes no driver, so its forked children may use it"),
    (r"cudadrv\.test_events::.*cuda_core", "events of NVIDIA's cuda.core package on a CUDA device"),
    (r"test_cuda_array_interface::.*(stream|sync|consumer)", "streams as the CUDA array interface exchanges them"),
    (r"test_inspect::.*sass", "SASS from nvdisasm for a real device"),
    (r"test_device_func::TestDeclareDevice|test_cffi::|doc_examples\.test_ffi::|"
     r"cudadrv\.test_linker::.*linking_(cu|eager|lazy)|cudadrv\.test_module_callbacks::.*(decldevice_arg|jitarg)|"
     r"test_inspect::.*lto_asm|test_extending::.*linked_called_through_overload",
     "kernels that call linked CUDA C or PTX device functions, which the CPU backend cannot run (they compile and "
     "link to a cubin without a GPU: tests/python/test_cuda_c*.py, test_lto*.py)"),
    (r"test_compiler::TestCompileForCurrentDevice::", "the current device's compute capability (the CPU backend "
     "has none, which numba's find_closest_arch refuses)"),
    (r"test_warning::.*(inefficient_launch|warn_on_host_array)", "launch warnings about a CUDA device's occupancy "
     "and copies, which the CPU backend does not give"),
]

_TESTS = [(re.compile(p), why) for p, why in TESTS]
_LATER_TESTS = [(re.compile(p), why) for p, why in LATER_TESTS]
_NEEDS_GPU = [(re.compile(p), why) for p, why in NEEDS_GPU]


def _reason(test_id, modules, patterns):
    """The reason `modules` (by module name) or `patterns` (over the whole id) give for a test, or None."""
    module = test_id.split("::", 1)[0]
    if module in modules:
        return modules[module]
    return next((why for pattern, why in patterns if pattern.search(test_id)), None)


def out_of_scope(test_id):
    """The reason a test (module::Class::test) is out of scope, or None."""
    return _reason(test_id, MODULES, _TESTS)


def later(test_id):
    """The issue (and reason) that owns an in-scope test counted apart for now, or None."""
    return _reason(test_id, LATER_MODULES, _LATER_TESTS)


def needs_gpu(test_id):
    """The reason a test means nothing on the CPU backend, or None."""
    return _reason(test_id, {}, _NEEDS_GPU)
