# kernel: black_scholes
# signature: float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32, float32
import math

import numpy as np
from numba import cuda

RSQRT2 = 0.7071067811865476


@cuda.jit(device=True)
def cnd(d):
    return 0.5 * (1.0 + math.erf(d * RSQRT2))


@cuda.jit
def black_scholes(call, put, stock, strike, years, riskfree, volatility):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= stock.shape[0]:
        return
    s = stock[i]
    k = strike[i]
    t = years[i]
    sqrt_t = math.sqrt(t)
    d1 = (math.log(s / k) + (riskfree + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t)
    d2 = d1 - volatility * sqrt_t
    exp_rt = math.exp(-riskfree * t)
    call[i] = s * cnd(d1) - k * exp_rt * cnd(d2)
    put[i] = k * exp_rt * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))
    years[i] = np.float32(math.pi) * t
