"""Warp-level operations (shfl_*_sync, the votes, match_*_sync, activemask, lanemask_lt) against NumPy
models of PTX's semantics, on the default backend: the GPU where there is one, else the CPU backend, whose
fibers meet at each warp operation. Masks name only lanes that exist and reach the call, so the results are
defined on a GPU too; the deadlock test is the CPU backend's own."""

import numpy as np
import pytest

import gpujit as gpu

WARP = 32


def lanes_of(n):
    return np.arange(n) % WARP


@gpu.jit
def warp_sum(x, out):
    i = gpu.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += gpu.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if gpu.laneid == 0:
        out[i // 32] = v


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_shuffle_down_tree_reduction_sums_each_warp(dtype):
    n = 256
    x = (np.arange(n) * 3 - 100).astype(dtype)
    out = np.zeros(n // WARP, dtype)
    warp_sum[4, 64](x, out)
    np.testing.assert_array_equal(out, x.reshape(-1, WARP).sum(axis=1))


@gpu.jit
def shuffles(values, src, out_idx, out_up, out_down, out_xor):
    i = gpu.grid(1)
    v = values[i]
    out_idx[i] = gpu.shfl_sync(0xFFFFFFFF, v, src[i])
    out_up[i] = gpu.shfl_up_sync(0xFFFFFFFF, v, 3)
    out_down[i] = gpu.shfl_down_sync(0xFFFFFFFF, v, 5)
    out_xor[i] = gpu.shfl_xor_sync(0xFFFFFFFF, v, 6)


def shuffle_model(values, src):
    n = values.size
    lane = lanes_of(n)
    base = np.arange(n) - lane
    idx = values[base + (src % WARP)]
    up = np.where(lane >= 3, values[np.maximum(np.arange(n) - 3, 0)], values)
    down = np.where(lane + 5 <= 31, values[np.minimum(np.arange(n) + 5, n - 1)], values)
    xor = values[base + (lane ^ 6)]
    return idx, up, down, xor


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64, np.float32, np.float64])
def test_shuffle_modes_follow_ptx_semantics(dtype):
    n = 128
    rng = np.random.default_rng(1)
    if np.dtype(dtype).kind == "f":
        values = rng.standard_normal(n).astype(dtype)
        values[5] = np.nan  # the bits move unchanged
    else:
        # 64-bit values use both halves, so a shuffle of only the low word would be caught.
        values = (np.arange(n, dtype=np.uint64) * np.uint64(0x100000001) + np.uint64(7)).astype(dtype)
    src = ((np.arange(n) * 7) % 40 - 3).astype(np.int32)  # negative and >= 32 wrap modulo 32, as PTX's b[4:0]
    outs = [np.zeros(n, dtype) for _ in range(4)]
    shuffles[2, 64](values, src, *outs)
    for got, want in zip(outs, shuffle_model(values, src)):
        np.testing.assert_array_equal(got, want)


@gpu.jit
def votes(x, out_ballot, out_all, out_any, out_eq):
    i = gpu.grid(1)
    p = x[i] > 0
    out_ballot[i] = gpu.ballot_sync(0xFFFFFFFF, p)
    out_all[i] = gpu.all_sync(0xFFFFFFFF, p)
    out_any[i] = gpu.any_sync(0xFFFFFFFF, x[i])
    out_eq[i] = gpu.eq_sync(0xFFFFFFFF, p)


def test_votes_and_ballot_population_count():
    n = 128
    x = np.zeros(n, np.int32)
    x[0:32] = 1  # warp 0: all true
    x[40] = 5  # warp 1: one true
    x[64:96:2] = 1  # warp 2: every other lane
    # warp 3: all false
    ballot = np.zeros(n, np.int32)
    every, some, same = (np.zeros(n, np.bool_) for _ in range(3))
    votes[1, n](x, ballot, every, some, same)
    p = (x > 0).reshape(-1, WARP)
    bits = (p * (1 << np.arange(WARP, dtype=np.int64))).sum(axis=1).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(ballot, np.repeat(bits, WARP))
    counts = [bin(int(b) & 0xFFFFFFFF).count("1") for b in bits]
    assert counts == [32, 1, 16, 0]
    np.testing.assert_array_equal(every, np.repeat(p.all(axis=1), WARP))
    np.testing.assert_array_equal(some, np.repeat(p.any(axis=1), WARP))
    np.testing.assert_array_equal(same, np.repeat(p.all(axis=1) | ~p.any(axis=1), WARP))


@gpu.jit
def ballot_count(x, out):
    i = gpu.grid(1)
    b = gpu.ballot_sync(0xFFFFFFFF, x[i] > 0.5)
    if gpu.laneid == 0:
        out[i // 32] = gpu.popc(b)


def test_ballot_popc_counts_a_predicate_per_warp():
    n = 256
    x = np.random.default_rng(2).random(n)
    out = np.zeros(n // WARP, np.int32)
    ballot_count[2, 128](x, out)
    np.testing.assert_array_equal(out, (x > 0.5).reshape(-1, WARP).sum(axis=1))


@gpu.jit
def matches(x, y, out_any, out_all_mask, out_all_pred):
    i = gpu.grid(1)
    out_any[i] = gpu.match_any_sync(0xFFFFFFFF, x[i])
    m, p = gpu.match_all_sync(0xFFFFFFFF, y[i])
    out_all_mask[i] = m
    out_all_pred[i] = p


def test_match_any_and_all():
    n = 64
    x = (lanes_of(n) % 5).astype(np.float64)
    x[7] = -0.0  # compared by bits: -0.0 is not 0.0
    y = np.zeros(n, np.int64)
    y[40] = 1 << 40  # warp 1 differs in its high word only
    out_any = np.zeros(n, np.int32)
    out_all_mask = np.zeros(n, np.int32)
    out_all_pred = np.zeros(n, np.bool_)
    matches[1, n](x, y, out_any, out_all_mask, out_all_pred)
    bits = x.view(np.uint64)
    for i in range(n):
        w = i - i % WARP
        want = sum(1 << j for j in range(WARP) if bits[w + j] == bits[i])
        assert int(out_any[i]) & 0xFFFFFFFF == want, i
    np.testing.assert_array_equal(out_all_mask[:32], np.full(32, -1, np.int32))
    np.testing.assert_array_equal(out_all_pred[:32], True)
    np.testing.assert_array_equal(out_all_mask[32:], 0)
    np.testing.assert_array_equal(out_all_pred[32:], False)


@gpu.jit
def active_lanes(out_active, out_lt, out_partial):
    i = gpu.grid(1)
    full = gpu.activemask()
    out_partial[i] = gpu.ballot_sync(full, True)
    out_lt[i] = gpu.lanemask_lt()
    if gpu.laneid < 10:
        out_active[i] = gpu.activemask()


def test_activemask_sees_the_converged_lanes_and_a_partial_warp():
    n = 40  # warp 1 has 8 lanes
    active = np.zeros(n, np.uint32)
    lt = np.zeros(n, np.uint32)
    partial = np.zeros(n, np.int32)
    active_lanes[1, n](active, lt, partial)
    lane = lanes_of(n)
    np.testing.assert_array_equal(active[:10], 0x3FF)
    np.testing.assert_array_equal(active[32:], 0xFF)  # the 8 lanes of warp 1 all took the branch
    np.testing.assert_array_equal(lt, ((1 << lane) - 1).astype(np.uint32))
    np.testing.assert_array_equal(partial[:32], -1)
    np.testing.assert_array_equal(partial[32:], 0xFF)


@gpu.jit
def halves(x, out):
    i = gpu.grid(1)
    if gpu.laneid < 16:
        out[i] = gpu.shfl_xor_sync(0x0000FFFF, x[i], 1)
    else:
        out[i] = gpu.shfl_xor_sync(0xFFFF0000, x[i], 2) + 1000


def test_divergent_halves_shuffle_within_their_masks():
    n = 64
    x = np.arange(n, dtype=np.int64)
    out = np.zeros(n, np.int64)
    halves[1, n](x, out)
    lane = lanes_of(n)
    want = np.where(lane < 16, x ^ 1, (x - lane + (lane ^ 2)) + 1000)
    np.testing.assert_array_equal(out, want)


@gpu.jit
def lane_left_out(x):
    i = gpu.grid(1)
    if gpu.laneid != 3:
        x[i] = gpu.shfl_sync(0xFFFFFFFF, x[i], 0)
    gpu.syncthreads()


def test_a_lane_that_never_arrives_is_a_deadlock_on_the_cpu_backend():
    if gpu._core.backend_name() != "cpu":
        pytest.skip("a GPU hangs or leaves the result undefined; the CPU backend reports it")
    with pytest.raises(Exception, match="deadlocked in block"):
        lane_left_out[1, 32](np.zeros(32, np.int64))
