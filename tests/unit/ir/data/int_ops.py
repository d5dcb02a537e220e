# kernel: int_ops
# signature: int32[:], uint32[:], int64[:], uint64[::1]
import gpujit as gpu


@gpu.jit
def int_ops(a, b, out, bits):
    i = gpu.grid(1)
    if i >= a.shape[0]:
        return
    x = a[i]
    u = b[i]
    q = x // 7
    r = x % -3
    s = (x << 2) ^ (x >> 1)
    m = u & 0xFF | u >> 4
    n = ~x
    k = u + 1
    mixed = u + x
    out[i] = q + r + s + n
    bits[i] = m * k
    out[i] += int(mixed)
    flag = (x & 1) == 0 and u != 0
    if flag:
        out[i] -= 2 ** 10
