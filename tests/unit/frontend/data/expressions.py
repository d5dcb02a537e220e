import gpujit as gpu
from gpujit import float32


@gpu.jit(device=True)
def literals():
    big = 18446744073709551615
    ints = 0x2a, 0o17, 0b1010, 1_000_000, 0
    floats = 1., .5, 1e-3, 1_0.5, 2.5e10, 1e300
    flags = True, False, None
    text = "tab\there" 'and "quotes"' '''
multi-line'''
    empty = ()
    single = (1,)
    return big


@gpu.jit("void(float32[:, :], float32[:, :])")
def expressions(a: float32[:, :], b) -> None:
    c = -2 ** 2 + ~a[0, 0] * +b[1, 1] // 3 % 4
    d = (a[1:n:2, ::1], a[:], a[i:], a[:j, 0])
    e = a | b ^ c & d << 1 >> 2
    f = gpu.shared.array(shape=(32, 32), dtype=gpu.float32)
    g = gpu.atomic.add(a, (0, 1), 1.0)
    h = not a == b != c
    m = x if a else y if b else z
    a[0, 0] = (
        a[1, 1]
        + b[2, 2]
    )
