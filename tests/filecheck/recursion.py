# A device function may call itself: its return type comes from a return that does not recurse (a base case),
# or from the signature its decorator declares. The PTX keeps a real recursive .func call. Mutual recursion,
# and self-recursion with no type to start from, are errors that say what to do.
# RUN: %gpujit ptx %s -k fib_kernel --sig 'void(int64[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k fib_kernel --sig 'void(int64[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k mutual_kernel --sig 'void(int64[::1])' 2>&1 | FileCheck %s --check-prefix=MUTUAL
# RUN: not %gpujit ptx %s -k no_base_kernel --sig 'void(int64[::1])' 2>&1 | FileCheck %s --check-prefix=NOBASE
# RUN: %gpujit ptx %s -k declared_kernel --sig 'void(float64[::1])' --arch sm_75 -o %t.decl.ptx
# RUN: %ptxas-all %t.decl.ptx
import gpujit as cuda


@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit
def fib_kernel(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fib(i)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit
def mutual_kernel(out):
    out[0] = is_even(out[0])


@cuda.jit(device=True)
def forever(n):
    return forever(n + 1)


@cuda.jit
def no_base_kernel(out):
    out[0] = forever(out[0])


@cuda.jit("float64(int64)", device=True)
def halves(n):
    if n > 0:
        return 0.5 * halves(n - 1)
    return 1


@cuda.jit
def declared_kernel(out):
    out[0] = halves(3)

# CHECK: .func {{.*}}fib
# CHECK: call.uni {{.*}}fib
# CHECK: .visible .entry {{.*}}fib_kernel

# TYPED: device fib(n: int64) -> int64

# MUTUAL: error: mutual recursion is not supported: is_even -> is_odd -> is_even; only a function that calls itself may recurse

# NOBASE: error: cannot type infer runaway recursion: every value recursive function 'forever' returns depends on this call; add a base case that returns without calling 'forever', or declare the signature, e.g. @cuda.jit("int64(int64)", device=True)
