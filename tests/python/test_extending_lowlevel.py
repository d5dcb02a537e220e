"""numba's low-level extension API in kernels (python/gpujit/_lowlevel.py): @intrinsic, and type_callable with
lower_builtin. The callbacks run with numba-cuda's contexts and emit LLVM IR through llvmlite, which the compiler
links into the kernel; the kernels here run on the CPU backend (and on a GPU where there is one)."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu
from gpujit import CompileError

numba_cuda = pytest.importorskip("numba.cuda.extending", reason="numba-cuda is not installed")
try:  # the bridge runs numba-cuda's target context, which imports its cudaimpl
    import numba.cuda.cudaimpl  # noqa: F401
except AttributeError as e:  # numba-cuda 0.30's own import fails against NumPy 2.4 (np.row_stack)
    pytest.skip(f"numba-cuda's cudaimpl does not import here: {e}", allow_module_level=True)
from llvmlite import ir  # noqa: E402
from numba.cuda import types  # noqa: E402
from numba.cuda.extending import intrinsic, lower_builtin, type_callable  # noqa: E402


@intrinsic
def add_const(typingctx, x):
    def codegen(context, builder, sig, args):
        one = context.get_constant(sig.return_type, 3)
        if isinstance(sig.return_type, types.Float):
            return builder.fadd(args[0], one)
        return builder.add(args[0], one)

    return x(x), codegen


@intrinsic
def as_int32_twice(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.mul(args[0], context.get_constant(types.int32, 2))

    return types.int32(types.int32), codegen  # the argument is converted to int32 at the call


@intrinsic
def nothing(typingctx, x):
    def codegen(context, builder, sig, args):
        pass  # void: no value

    return types.void(x), codegen


@intrinsic
def is_negative(typingctx, x):
    if isinstance(x, types.Float):
        def codegen(context, builder, sig, args):
            return builder.fcmp_ordered("<", args[0], context.get_constant(x, 0))

        return types.boolean(x), codegen
    return None  # declines other types


@intrinsic
def negate_flag(typingctx, b):
    def codegen(context, builder, sig, args):
        return builder.not_(args[0])

    return types.boolean(types.boolean), codegen


@intrinsic
def times_literal(typingctx, x, k):
    if not isinstance(k, types.IntegerLiteral):
        return None  # asks for a constant: typed again with the literal type
    n = k.literal_value

    def codegen(context, builder, sig, args):
        return builder.mul(args[0], context.get_constant(sig.args[0], n))

    return x(x, k), codegen


def scaled(x, k=None):  # a library's host function, implemented below for kernels
    raise NotImplementedError


@type_callable(scaled)
def _type_scaled(context):
    def typer(x, k=None):
        if isinstance(x, types.Float) and isinstance(k, types.Integer):
            return x
        if isinstance(x, types.Float) and k is None:
            return types.int64

    return typer


@lower_builtin(scaled, types.Float, types.Integer)
def _lower_scaled(context, builder, sig, args):
    x, k = args
    k = context.cast(builder, k, sig.args[1], sig.return_type)
    return builder.fmul(x, k)


@lower_builtin(scaled, types.Float)
def _lower_scaled_unary(context, builder, sig, args):
    return context.get_constant(sig.return_type, 42)


def test_intrinsic_with_the_argument_s_type():
    @gpu.jit
    def k(r, x, n):
        r[0] = add_const(x[0])
        r[1] = add_const(n)

        r[2] = times_literal(n, 5)

    r = np.zeros(3)
    k[1, 1](r, np.array([1.5]), 4)
    assert r.tolist() == [4.5, 7.0, 20.0]


def test_intrinsic_signature_converts_the_arguments_and_void_and_bools():
    @gpu.jit
    def k(r, x):
        nothing(x[0])
        r[0] = as_int32_twice(21)
        r[1] = is_negative(x[0])
        r[2] = is_negative(-x[0])
        r[3] = negate_flag(x[0] > 0)

    r = np.zeros(4, dtype=np.int64)
    k[1, 1](r, np.array([2.0]))
    assert r.tolist() == [42, 0, 1, 0]


def test_intrinsic_in_a_device_function():
    @gpu.jit(device=True)
    def dev(v):
        return add_const(v) * 2

    @gpu.jit
    def k(r):
        r[0] = dev(1)

    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r)
    assert r[0] == 8


def test_type_callable_and_lower_builtin():
    @gpu.jit
    def k(r, x):
        r[0] = scaled(x[0], 3)
        r[1] = scaled(x[0])

    r = np.zeros(2)
    k[1, 1](r, np.array([1.5]))
    assert r.tolist() == [4.5, 42.0]


def test_gpujit_s_own_intrinsic_decorator():
    from gpujit.extending import intrinsic as gpujit_intrinsic

    @gpujit_intrinsic
    def sub_one(typingctx, x):
        def codegen(context, builder, sig, args):
            return builder.sub(args[0], ir.Constant(args[0].type, 1))

        return x(x), codegen

    @gpu.jit
    def k(r, n):
        r[0] = sub_one(n)

    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r, 10)
    assert r[0] == 9


def test_declined_types_and_unsupported_types_are_compile_errors():
    @gpu.jit
    def declined(r, n):
        r[0] = is_negative(n)

    with pytest.raises(CompileError, match=r"No implementation of function 'is_negative' found for signature: "
                                           r"is_negative\(int64\)"):
        declined[1, 1](np.zeros(1), 3)

    @intrinsic
    def array_len(typingctx, a):
        def codegen(context, builder, sig, args):
            return context.get_constant(types.intp, 0)

        return types.intp(a), codegen

    @gpu.jit
    def on_array(r):
        r[0] = array_len(r)

    with pytest.raises(CompileError, match=r"parameter 1 is array\(float64, 1d, C\); gpujit's bridge of numba's "
                                           r"lowering .* takes booleans, integers, floats and a library's struct"):
        on_array[1, 1](np.zeros(1))


def test_callback_errors_are_compile_errors():
    @intrinsic
    def forgets(typingctx, x):
        def codegen(context, builder, sig, args):
            pass  # a value was due

        return x(x), codegen

    @gpu.jit
    def k(r):
        r[0] = forgets(1)

    from numba.cuda.errors import LoweringError

    # numba-cuda's error class, as numba-cuda raises it, and a CompileError at the call's line.
    with pytest.raises(LoweringError, match="LoweringError: non-void function returns None from implementation") \
            as info:
        k[1, 1](np.zeros(1))
    assert isinstance(info.value, CompileError) and info.value.lineno == k.py_func.__code__.co_firstlineno + 2

    def with_file(x):
        raise NotImplementedError

    @type_callable(with_file)
    def _type_with_file(context):
        return lambda x: x if isinstance(x, types.Float) else None

    @lower_builtin(with_file, types.Float)
    def _lower_with_file(context, builder, sig, args):
        context.active_code_library.add_linking_file("helpers.cu")
        return args[0]

    @gpu.jit
    def h(r):
        r[0] = with_file(r[0])

    with pytest.raises(CompileError, match=r"the lowering links files of its own \(helpers.cu\), which gpujit's "
                                           r"bridge of numba's lowering does not take"):
        h[1, 1](np.zeros(1))


def halved_root(x):
    raise NotImplementedError


@type_callable(halved_root)
def _type_halved_root(context):
    return lambda x: x if isinstance(x, types.Float) else None


@lower_builtin(halved_root, types.Float)
def _lower_halved_root(context, builder, sig, args):
    def impl(x):  # compiled by numba-cuda, called with numba's calling convention
        return math.sqrt(x) / 2

    return context.compile_internal(builder, impl, sig, args)


def test_compile_internal_links_what_numba_compiled():
    @gpu.jit
    def k(r, x):
        r[0] = halved_root(x[0])
        r[1] = halved_root(x[1]) + math.sqrt(x[1])  # numba's libdevice call and gpujit's own side by side

    r = np.zeros(2)
    k[1, 1](r, np.array([16.0, 4.0]))
    assert r.tolist() == [2.0, 3.0]


def test_ptx_of_a_kernel_calling_an_intrinsic_has_no_external_symbol():
    def k(r, x):
        r[0] = add_const(x[0])

    ptx, _ = gpu.compile_ptx(k, "void(float64[::1], float64[::1])", device=False)
    assert "gpujit_lowlevel" not in ptx  # inlined, not an .extern .func
    assert ".extern" not in ptx


def _run(tmp_path, code):
    full = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_DEVICE", "GPUJIT_BACKEND")}
    full["GPUJIT_DEVICE"] = "cpu"
    program = tmp_path / "prog.py"  # kernels are compiled from their file's text
    program.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=full, timeout=300)


def test_without_numba_an_intrinsic_call_says_it_needs_numba_cuda(tmp_path):
    out = _run(tmp_path, """
        import sys
        sys.modules["numba"] = None  # numba cannot be imported
        import numpy as np
        import gpujit as gpu
        from gpujit.extending import intrinsic

        @intrinsic
        def ident(typingctx, x):
            return x(x), lambda context, builder, sig, args: args[0]

        @gpu.jit
        def k(r):
            r[0] = ident(1)

        try:
            k[1, 1](np.zeros(1))
        except gpu.CompileError as e:
            print("error:", e)
    """)
    assert out.returncode == 0, out.stderr
    assert "'ident' is an @intrinsic: it needs numba-cuda installed" in out.stdout


def test_drop_in_mode_numba_cuda_s_typing_context_and_math_lowering(tmp_path):
    # numba-cuda's typing context installs numba.cuda.bf16's registries (gpujit's module in the drop-in mode),
    # and its math lowering calls numba.cuda.libdevice's stubs (numba's own module there): a lowering that
    # compiles math.sqrt with numba works under the shim too.
    out = _run(tmp_path, """
        import gpujit
        gpujit.install_numba_shim()
        import math
        import numpy as np
        import numba.cuda.target
        from numba import cuda
        from numba.cuda import types
        from numba.cuda.extending import type_callable, lower_builtin

        ctx = numba.cuda.target.CUDATypingContext()
        ctx.refresh()

        def root(x):
            raise NotImplementedError

        @type_callable(root)
        def _type_root(context):
            return lambda x: x if isinstance(x, types.Float) else None

        @lower_builtin(root, types.Float)
        def _lower_root(context, builder, sig, args):
            return context.compile_internal(builder, lambda x: math.sqrt(x), sig, args)

        @cuda.jit
        def k(r, x):
            r[0] = root(x[0])

        r = np.zeros(1)
        k[1, 1](r, np.array([9.0]))
        print("root", r[0])
    """)
    assert out.returncode == 0, out.stderr
    assert "root 3.0" in out.stdout


def test_ir_calling_what_the_cpu_backend_lacks_is_refused_by_name(cpu_backend):
    @intrinsic
    def call_external(typingctx, x):
        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32)])
            fn = ir.Function(builder.module, fnty, "add_cabi_elsewhere")
            return builder.call(fn, args)

        return types.int32(types.int32), codegen

    @gpu.jit
    def k(r):
        r[0] = call_external(1)

    with pytest.raises(CompileError, match="its LLVM IR calls 'add_cabi_elsewhere', which the cpu backend does "
                                           "not have"):
        k[1, 1](np.zeros(1, dtype=np.int32))


def test_intrinsic_takes_void_pointers_and_returns_nothing():
    # numba-cuda's own gh-781 pattern: an intrinsic of void(void*, void*) that loads through one pointer and
    # stores through the other, called as `return wrapper(a, b)` from a function compiled for (void*, void*).
    @intrinsic
    def copy_plus_one(typingctx, src, dst):
        sig = types.void(types.voidptr, types.voidptr)

        def codegen(context, builder, sig, args):
            i32 = context.get_value_type(types.int32)
            value = builder.load(builder.bitcast(args[0], i32.as_pointer()))
            builder.store(builder.add(value, ir.Constant(i32, 1)), builder.bitcast(args[1], i32.as_pointer()))
            return context.get_dummy_value()

        return sig, codegen

    def wrapper(src, dst):
        return copy_plus_one(src, dst)

    ptx, resty = gpu.compile_ptx(wrapper, (types.voidptr, types.voidptr), device=True, abi="c")
    assert str(resty) == "none" and ".visible .func" in ptx

    @gpu.jit("void(void*, void*)")
    def kernel(src, dst):
        copy_plus_one(src, dst)

    s, d = gpu.to_device(np.array([41], np.int32)), gpu.to_device(np.zeros(1, np.int32))
    kernel[1, 1](s.__cuda_array_interface__["data"][0], d.__cuda_array_interface__["data"][0])
    assert d.copy_to_host()[0] == 42
