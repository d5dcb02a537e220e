"""Black-Scholes European option pricing, with math.erf, math.exp, math.log and math.sqrt and a device
function for the normal CDF.

    .venv/bin/python examples/black_scholes.py
"""
# gpujit-sig: black_scholes void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64)
import math

import numpy as np

import gpujit as gpu


@gpu.jit(device=True)
def normal_cdf(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


@gpu.jit
def black_scholes(call, put, price, strike, years, rate, volatility):
    i = gpu.grid(1)
    if i < price.size:
        sqrt_t = math.sqrt(years[i])
        d1 = (math.log(price[i] / strike[i]) + (rate + 0.5 * volatility * volatility) * years[i]) / (
            volatility * sqrt_t)
        d2 = d1 - volatility * sqrt_t
        cnd_d1 = normal_cdf(d1)
        cnd_d2 = normal_cdf(d2)
        discount = math.exp(-rate * years[i])
        call[i] = price[i] * cnd_d1 - strike[i] * discount * cnd_d2
        put[i] = strike[i] * discount * (1.0 - cnd_d2) - price[i] * (1.0 - cnd_d1)


def black_scholes_numpy(price, strike, years, rate, volatility):
    erf = np.vectorize(math.erf)
    sqrt_t = np.sqrt(years)
    d1 = (np.log(price / strike) + (rate + 0.5 * volatility * volatility) * years) / (volatility * sqrt_t)
    d2 = d1 - volatility * sqrt_t
    cnd_d1 = 0.5 * (1.0 + erf(d1 / math.sqrt(2.0)))
    cnd_d2 = 0.5 * (1.0 + erf(d2 / math.sqrt(2.0)))
    discount = np.exp(-rate * years)
    call = price * cnd_d1 - strike * discount * cnd_d2
    put = strike * discount * (1.0 - cnd_d2) - price * (1.0 - cnd_d1)
    return call, put


def main():
    device = gpu.get_current_device()  # the GPU if there is one, else the CPU backend
    n = 100_000
    rng = np.random.default_rng(3)
    price = rng.uniform(5.0, 30.0, n)
    strike = rng.uniform(1.0, 100.0, n)
    years = rng.uniform(0.25, 10.0, n)
    rate, volatility = 0.02, 0.30
    call = np.zeros(n)
    put = np.zeros(n)

    threads = 256
    blocks = (n + threads - 1) // threads
    black_scholes[blocks, threads](call, put, price, strike, years, rate, volatility)

    expected_call, expected_put = black_scholes_numpy(price, strike, years, rate, volatility)
    np.testing.assert_allclose(call, expected_call, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(put, expected_put, rtol=1e-9, atol=1e-9)
    print(f"black_scholes: {n} options priced, calls and puts match NumPy "
          f"(mean call {call.mean():.4f}, mean put {put.mean():.4f})")
    print(f"  ran on {device.name} ({device.backend} backend)")


if __name__ == "__main__":
    try:
        main()
    except gpu.CudaSupportError as err:
        # Neither a GPU nor the CPU backend can run kernels here; compiling still works (gpujit ptx).
        print(f"black_scholes: cannot run kernels on this machine: {err}")
