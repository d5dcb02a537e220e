"""A device function lists the specializations the kernels that call it compiled (docs/python.md), as numba's
does: `device_func.signatures` and `device_func.overloads`, whose `library.get_llvm_str()` is the function
compiled on its own with numba's ABI (numba-cuda's test_declare_device_cabi_propagate reads it)."""

import numpy as np

import gpujit as gpu


def test_kernel_compiles_list_the_device_functions_signatures(cpu_backend):
    @gpu.jit(device=True)
    def twice(x):
        return x * 2

    @gpu.jit
    def kernel(r, x):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = twice(x[i])

    assert twice.signatures == []
    x = np.arange(4, dtype=np.int32)
    r = np.zeros_like(x)
    kernel[1, 4](r, x)
    np.testing.assert_array_equal(r, x * 2)
    assert twice.signatures == ["(int32)"]
    kernel[1, 4](r.astype(np.float32), x.astype(np.float32))
    kernel[1, 4](r, x)  # the same specialization again: listed once
    assert twice.signatures == ["(int32)", "(float32)"]

    overload = twice.overloads[twice.signatures[0]]
    llvm = overload.library.get_llvm_str()
    assert "ret i32 0" in llvm  # numba's ABI: the status, 0, returned; the result stored through a pointer


def test_plain_jit_function_called_from_a_kernel_lists_its_signature(cpu_backend):
    # numba-cuda's test_declare_device_cabi_propagate: a function without device=True that a kernel calls.
    @gpu.jit
    def add_one(x):
        return x + 1

    @gpu.jit
    def kernel(r, x):
        r[0] = add_one(x[0])

    r = np.zeros(1, np.int64)
    kernel[1, 1](r, np.array([41], np.int64))
    assert r[0] == 42
    assert add_one.signatures == ["(int64)"]
    assert add_one._called_signatures == ["(int64)"]
    llvm = add_one.overloads[add_one.signatures[0]].library.get_llvm_str()
    assert "ret i32 0" in llvm


def test_compile_time_arguments_are_not_listed(cpu_backend):
    @gpu.jit(device=True)
    def alloc(dty):
        a = gpu.local.array(1, dty)
        a[0] = 1
        return a[0]

    @gpu.jit
    def kernel(r):
        r[0] = alloc(np.float32)

    r = np.zeros(1, np.float32)
    kernel[1, 1](r)
    assert r[0] == 1
    assert alloc.signatures == []  # a dtype argument has no run-time type to list


def test_kernel_library_gives_its_llvm_and_ptx():
    k = gpu.jit("void(float32[::1])")(lambda_kernel)
    lib = k.overloads[k.signatures[0]].library
    assert "define" in lib.get_llvm_str()
    assert ".entry" in lib.get_asm_str()


def lambda_kernel(x):
    x[0] = 1.0
