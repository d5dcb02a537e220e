"""gpu.random against a pure-Python model of numba.cuda.random's xoroshiro128+: the host-made states (SplitMix64
seeding, jumps of 2**64 steps between generators), the exact bits of the first uniform draws, the normal
draws within float rounding, and a Monte Carlo estimate of pi within its statistical error."""

import math

import numpy as np
import pytest

import gpujit as gpu
from gpujit.random import (create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_next,
                           xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
                           xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

M64 = (1 << 64) - 1


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def step(s):
    s0, s1 = s
    result = (s0 + s1) & M64
    t = s0 ^ s1
    return result, (rotl(s0, 55) ^ t ^ ((t << 14) & M64), rotl(t, 36))


def jump(s):
    j0 = j1 = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for b in range(64):
            if word >> b & 1:
                j0 ^= s[0]
                j1 ^= s[1]
            _, s = step(s)
    return (j0, j1)


def model_states(n, seed, subsequence_start=0):
    z = (seed + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    s = (z, z)
    for _ in range(subsequence_start):
        s = jump(s)
    out = [s]
    for _ in range(1, n):
        s = jump(s)
        out.append(s)
    return out


def unit_f64(x):
    return np.float64(x >> 11) * np.float64(2.0 ** -53)


@pytest.mark.parametrize("seed,start", [(1, 0), (12345, 0), (2**64 - 1, 0), (7, 2)])
def test_states_are_numbas(seed, start):
    states = create_xoroshiro128p_states(5, seed=seed, subsequence_start=start)
    host = states.copy_to_host()
    # numba's record array: one (s0, s1) record of two uint64 per generator.
    assert host.shape == (5,) and host.dtype == gpu.random.xoroshiro128p_dtype
    assert host.dtype.names == ("s0", "s1") and host.dtype.itemsize == 16
    assert [tuple(int(v) for v in rec.item()) for rec in host] == model_states(5, seed, start)


def test_negative_seeds_wrap_like_numbas_uint64_and_init_in_place():
    states = gpu.device_array((3, 2), np.uint64)
    init_xoroshiro128p_states(states, -1)
    assert [tuple(int(v) for v in row) for row in states.copy_to_host()] == model_states(3, M64)


@gpu.jit
def first_draws(states, raw, u64, u32):
    i = gpu.grid(1)
    if i < raw.shape[0]:
        for k in range(3):
            raw[i, k] = xoroshiro128p_next(states, i)
            u64[i, k] = xoroshiro128p_uniform_float64(states, i)
            u32[i, k] = xoroshiro128p_uniform_float32(states, i)


def test_first_draws_are_exactly_numbas():
    n = 40
    states = create_xoroshiro128p_states(n, seed=42)
    raw = np.zeros((n, 3), np.uint64)
    u64 = np.zeros((n, 3), np.float64)
    u32 = np.zeros((n, 3), np.float32)
    first_draws[2, 32](states, raw, u64, u32)
    for i, s in enumerate(model_states(n, 42)):
        for k in range(3):
            r, s = step(s)
            assert int(raw[i, k]) == r
            x, s = step(s)
            assert u64[i, k] == unit_f64(x)
            x, s = step(s)
            assert u32[i, k] == np.float32(unit_f64(x))
        assert [int(v) for v in states.copy_to_host()[i].item()] == list(s)  # the states advanced in place


def test_the_same_states_as_an_n_by_2_uint64_array_draw_the_same():
    n = 40
    records = create_xoroshiro128p_states(n, seed=42)
    pairs = gpu.to_device(records.copy_to_host().view(np.uint64).reshape(n, 2))
    got = [(np.zeros((n, 3), np.uint64), np.zeros((n, 3), np.float64), np.zeros((n, 3), np.float32))
           for _ in range(2)]
    first_draws[2, 32](records, *got[0])
    first_draws[2, 32](pairs, *got[1])
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(records.copy_to_host().view(np.uint64).reshape(n, 2), pairs.copy_to_host())


@gpu.jit
def normals(states, out32, out64):
    i = gpu.grid(1)
    if i < out32.size:
        out32[i] = xoroshiro128p_normal_float32(states, i)
        out64[i] = xoroshiro128p_normal_float64(states, i)


def test_normal_draws_are_box_muller_of_two_float32_uniforms():
    n = 64
    states = create_xoroshiro128p_states(n, seed=3)
    out32 = np.zeros(n, np.float32)
    out64 = np.zeros(n, np.float64)
    normals[1, n](states, out32, out64)
    for i, s in enumerate(model_states(n, 3)):
        u = []
        for _ in range(4):
            x, s = step(s)
            u.append(np.float32(unit_f64(x)))
        z32 = math.sqrt(-2.0 * math.log(u[0])) * math.cos(float(np.float32(2 * math.pi)) * float(u[1]))
        z64 = math.sqrt(-2.0 * float(np.float32(math.log(u[2])))) * math.cos(2 * math.pi * float(u[3]))
        assert out32[i] == pytest.approx(z32, rel=2e-6, abs=2e-6)
        assert out64[i] == pytest.approx(z64, rel=1e-6, abs=1e-7)  # log(u1) is a float32 logarithm


@gpu.jit
def pi_hits(states, draws, hits):
    i = gpu.grid(1)
    if i < hits.size:
        count = 0
        for _ in range(draws):
            x = xoroshiro128p_uniform_float32(states, i)
            y = xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                count += 1
        hits[i] = count


def test_monte_carlo_pi():
    threads, draws = 1024, 400
    states = create_xoroshiro128p_states(threads, seed=2024)
    hits = np.zeros(threads, np.int64)
    pi_hits[8, 128](states, draws, hits)
    n = threads * draws
    p = math.pi / 4
    estimate = 4 * hits.sum() / n
    sigma = 4 * math.sqrt(p * (1 - p) / n)
    assert abs(estimate - math.pi) < 5 * sigma
    # Independent generators: the per-thread counts spread like a binomial's, not identically.
    assert 0.8 < hits.std() / math.sqrt(draws * p * (1 - p)) < 1.2


def test_states_must_be_the_generator_array():
    @gpu.jit
    def bad(states, out):
        out[0] = xoroshiro128p_uniform_float32(states, 0)

    with pytest.raises(gpu.CompileError, match="create_xoroshiro128p_states"):
        bad[1, 1](np.zeros(4, np.uint64), np.zeros(1, np.float32))
    # A record of another layout is not a generator state either.
    with pytest.raises(gpu.CompileError, match=r"1-D array of \(s0, s1\) uint64 records"):
        bad[1, 1](np.zeros(4, np.dtype([("s0", "u8"), ("s1", "u4")])), np.zeros(1, np.float32))
