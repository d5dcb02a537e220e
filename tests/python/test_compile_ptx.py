"""compile_ptx(device=True): a device function compiled on its own, with the C ABI and numba's; kernels that
return a value; the cc argument. All of it compiles PTX, on any machine."""

import re
from types import ModuleType

import pytest

import gpujit as gpu


def add(x, y):
    return x + y


def test_c_abi_returns_the_result_under_the_function_name():
    ptx, resty = gpu.compile_ptx(add, gpu.int32(gpu.int32, gpu.int32), device=True, abi="c")
    assert resty == gpu.int32
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+add\(", ptx)
    assert ".entry" not in ptx and "add_param_2" not in ptx
    ptx, resty = gpu.compile_ptx(add, gpu.int64(gpu.int64, gpu.int64), device=True, abi="c")
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b64\s+func_retval0\)\s+add\(", ptx)


def test_c_abi_name_and_compile_defaults():
    ptx, _ = gpu.compile_ptx(add, "int32(int32, int32)", device=True, abi="c", abi_info={"abi_name": "_Z4funcii"})
    assert re.search(r"func_retval0\)\s+_Z4funcii\(", ptx)
    ptx, resty = gpu.compile(add, (gpu.float32, gpu.float32))  # device=True, abi="c"
    assert resty == gpu.float32
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+add\(", ptx)


def test_numba_abi_returns_a_status_and_writes_the_result_through_a_pointer():
    ptx, resty = gpu.compile_ptx(add, (gpu.float32, gpu.float32), device=True)
    assert resty == gpu.float32  # inferred
    header = re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+(\w+)\(([^)]*)\)", ptx)
    assert header and header.group(1).startswith("_gpujit_add_")
    params = re.findall(r"\.param\s+\.(\w+)\s+\w+", header.group(2))
    assert params == ["b64", "b64", "b32", "b32"]  # result pointer, exception information, x, y
    assert re.search(r"st\.param\.b32\s+\[func_retval0\], 0;", ptx)


def test_declared_return_type_converts_the_result():
    ptx, resty = gpu.compile_ptx(add, "uint32(uint32, uint32)", device=True)
    assert str(resty) == "uint32"  # numba's uint32 once numba is loaded (a string signature)
    ptx, resty = gpu.compile_ptx(add, gpu.int16(gpu.int16, gpu.int16), device=True)
    assert resty == gpu.int16


def test_arrays_and_no_result():
    def total(a):
        s = 0.0
        for i in range(a.size):
            s += a[i]
        return s

    def fill(a, v):
        for i in range(a.size):
            a[i] = v

    ptx, resty = gpu.compile_ptx(total, (gpu.float64[::1],), device=True, abi="c")
    assert resty == gpu.float64 and ".param .align 8 .b8 total_param_0[24]" in ptx
    ptx, resty = gpu.compile_ptx(fill, (gpu.float32[:], gpu.float32), device=True, abi="c")
    assert resty == gpu.void and re.search(r"\.visible\s+\.func\s+fill\(", ptx)


def test_device_dispatcher_and_lineinfo():
    dev = gpu.jit(device=True)(add)
    ptx, _ = gpu.compile_ptx(dev, (gpu.float32, gpu.float32), device=True, lineinfo=True)
    assert ".visible .func" in ptx and re.search(r'\.file.*test_compile_ptx.py"', ptx)
    assert ".visible .func" in dev.inspect_ptx((gpu.float32, gpu.float32))


def test_bad_input_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fastcall"):
        gpu.compile_ptx(add, (gpu.int32, gpu.int32), abi="fastcall")
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        gpu.compile_ptx(add, (gpu.int32, gpu.int32), abi="c")
    with pytest.raises(TypeError, match="has 1 parameters"):
        gpu.compile_ptx(add, (gpu.int32,), device=True)
    with pytest.raises(gpu.CompileError, match="does not convert"):
        gpu.compile_ptx(add, gpu.int32[::1](gpu.int32, gpu.int32), device=True)


def test_lambdas_and_symbols():
    ptx, resty = gpu.compile_ptx(lambda x: x, gpu.int32(gpu.int32), device=True, abi="c")
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+lambda_\d+_\d+\(", ptx)
    ptx, _ = gpu.compile_ptx(lambda x: x, gpu.int32(gpu.int32), device=True, abi="c",
                             abi_info={"abi_name": "identity"})
    assert re.search(r"func_retval0\)\s+identity\(", ptx)
    with pytest.raises(gpu.CompileError, match="'<lambda>' cannot name a PTX function"):
        gpu.compile_ptx(add, gpu.int32(gpu.int32, gpu.int32), device=True, abi="c",
                        abi_info={"abi_name": "<lambda>"})


def test_kernel_returning_a_value_is_a_type_error():
    def f(x, y):
        return x[0] + y[0]

    with pytest.raises(TypeError, match="must have void return type"):
        gpu.compile_ptx(f, (gpu.uint32[::1], gpu.uint32[::1]))


def test_cc_picks_the_architecture():
    ptx, _ = gpu.compile_ptx(add, (gpu.float32, gpu.float32), device=True, cc=(9, 0))
    assert ".target sm_90" in ptx
    ptx, _ = gpu.compile_ptx(add, (gpu.float32, gpu.float32), device=True, cc=(7, 0))
    assert ".target sm_75" in ptx  # the oldest gpujit compiles for
    ptx, resty = gpu.compile_ptx(lambda: None, (), cc=(9, 0, "a"))  # kernels too; architecture-specific
    assert ".target sm_90a" in ptx and ".visible .entry" in ptx and resty == gpu.void
    ptx, _ = gpu.compile_ptx(lambda: None, (), cc=(10, 0, "f"))
    assert ".target sm_100f" in ptx


def test_compile_all_is_a_list_of_one_ptx():
    codes, resty = gpu.compile_all(add, gpu.int32(gpu.int32, gpu.int32), output="ptx")
    assert resty == gpu.int32 and len(codes) == 1 and re.search(r"func_retval0\)\s+add\(", codes[0])
    with pytest.raises(NotImplementedError, match="Unsupported output type: cubin"):
        gpu.compile_all(add, gpu.int32(gpu.int32, gpu.int32), output="cubin")


def test_launch_bounds():
    def f():
        pass

    ptx, _ = gpu.compile_ptx(f, "void()", launch_bounds=128)
    assert re.search(r"\.maxntid\s+128,\s+1,\s+1\s*\n", ptx) and ".minnctapersm" not in ptx
    ptx, _ = gpu.compile_ptx(f, "void()", launch_bounds=(128, 2, 4), cc=(9, 0))
    assert re.search(r"\.minnctapersm\s+2", ptx) and re.search(r"\.maxclusterrank\s+4", ptx)
    with pytest.raises(ValueError, match="Got 4 launch bounds:"):
        gpu.compile_ptx(f, "void()", launch_bounds=(128, 2, 4, 8))


# numba's types module, under each name numba-cuda code reaches it by (`from numba.cuda import types`,
# `numba.core.types`): its scalar types cast in kernels as gpujit's do. A stand-in module object with the
# same name is enough; the compiler resolves the attributes.
@pytest.mark.parametrize("module_name", ["numba.cuda.types", "numba.core.types"])
def test_numbas_types_module_casts_in_device_functions(module_name):
    types = ModuleType(module_name)

    def cmp_explicit(a, b):
        return types.uint8(a == b)

    cmp_explicit.__globals__["types"] = types
    try:
        ptx, resty = gpu.compile_ptx(cmp_explicit, (gpu.int32, gpu.int32), device=True, abi="c")
    finally:
        del cmp_explicit.__globals__["types"]
    assert resty == gpu.uint8 and ".visible .func" in ptx
