"""Whole kernels as numba-cuda users write them (`import gpujit as cuda`, unchanged source), each checked
against NumPy: a block tree reduction, a block scan, a tiled matrix multiply, a transpose through a padded
shared tile, a histogram with shared and global atomics, a 2-D stencil, an n-body step and a bitonic sort.

They run on the session's default backend: the CPU backend here, the GPU where there is one (conftest.py).
"""

import math

import numpy as np

import gpujit as cuda
from gpujit import float32

BLOCK = 256
TILE = 16
NBINS = 64


@cuda.jit
def block_sum(x, partial):
    cache = cuda.shared.array(BLOCK, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    cache[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if tid < stride:
            cache[tid] += cache[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = cache[0]


def test_block_tree_reduction():
    rng = np.random.default_rng(1)
    x = rng.integers(-50, 50, 10_000).astype(np.float32)  # integers: every order of additions is exact
    blocks = (x.size + BLOCK - 1) // BLOCK
    partial = np.zeros(blocks, np.float32)
    block_sum[blocks, BLOCK](x, partial)
    expected = np.add.reduceat(x, np.arange(0, x.size, BLOCK))
    np.testing.assert_array_equal(partial, expected)


@cuda.jit
def block_scan(x, out):
    # Hillis-Steele inclusive scan of one block, double-buffered in shared memory.
    buf = cuda.shared.array((2, BLOCK), dtype=np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[0, tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    src = 0
    offset = 1
    while offset < BLOCK:
        dst = 1 - src
        if tid >= offset:
            buf[dst, tid] = buf[src, tid] + buf[src, tid - offset]
        else:
            buf[dst, tid] = buf[src, tid]
        cuda.syncthreads()
        src = dst
        offset *= 2
    if i < x.size:
        out[i] = buf[src, tid]


def test_block_scan():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 1000, 1000)
    out = np.zeros_like(x)
    block_scan[(x.size + BLOCK - 1) // BLOCK, BLOCK](x, out)
    expected = np.concatenate([np.cumsum(x[s : s + BLOCK]) for s in range(0, x.size, BLOCK)])
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    sB = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        k = t * TILE
        sA[tx, ty] = A[x, k + ty] if x < A.shape[0] and k + ty < A.shape[1] else 0
        sB[tx, ty] = B[k + tx, y] if k + tx < B.shape[0] and y < B.shape[1] else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


def test_tiled_matrix_multiply():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((50, 70)).astype(np.float32)
    B = rng.standard_normal((70, 40)).astype(np.float32)
    C = np.zeros((50, 40), np.float32)
    grid = ((C.shape[0] + TILE - 1) // TILE, (C.shape[1] + TILE - 1) // TILE)
    matmul_tiled[grid, (TILE, TILE)](A, B, C)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), float32)  # padded: no bank conflicts on the column reads
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if by + ty < a.shape[0] and bx + tx < a.shape[1]:
        tile[ty, tx] = a[by + ty, bx + tx]
    cuda.syncthreads()
    if bx + ty < out.shape[0] and by + tx < out.shape[1]:
        out[bx + ty, by + tx] = tile[tx, ty]


def test_transpose_through_a_padded_shared_tile():
    a = np.arange(37 * 53, dtype=np.float32).reshape(37, 53)
    out = np.zeros((53, 37), np.float32)
    transpose[((53 + TILE - 1) // TILE, (37 + TILE - 1) // TILE), (TILE, TILE)](a, out)
    np.testing.assert_array_equal(out, a.T)


@cuda.jit
def histogram(values, bins):
    local_bins = cuda.shared.array(NBINS, dtype=cuda.int32)
    t = cuda.threadIdx.x
    for b in range(t, NBINS, cuda.blockDim.x):
        local_bins[b] = 0
    cuda.syncthreads()
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, values.size, stride):
        cuda.atomic.add(local_bins, values[i] % NBINS, 1)
    cuda.syncthreads()
    for b in range(t, NBINS, cuda.blockDim.x):
        cuda.atomic.add(bins, b, local_bins[b])


def test_histogram_with_shared_and_global_atomics():
    rng = np.random.default_rng(4)
    values = rng.integers(0, 10_000, 100_000).astype(np.int32)
    bins = np.zeros(NBINS, np.int32)
    histogram[16, 128](values, bins)
    np.testing.assert_array_equal(bins, np.bincount(values % NBINS, minlength=NBINS))


@cuda.jit
def jacobi_step(u, out):
    i, j = cuda.grid(2)
    n, m = u.shape
    if i < n and j < m:
        if i == 0 or j == 0 or i == n - 1 or j == m - 1:
            out[i, j] = u[i, j]
        else:
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def test_2d_stencil():
    rng = np.random.default_rng(5)
    u = rng.standard_normal((45, 61))
    out = np.zeros_like(u)
    jacobi_step[(3, 4), (16, 16)](u, out)
    expected = u.copy()
    expected[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=0)


SOFTENING = 1e-3


@cuda.jit
def nbody_step(pos, vel, dt):
    # Each block walks over all bodies tile by tile through shared memory, as in GPU Gems 3, ch. 31.
    tile = cuda.shared.array((BLOCK, 3), float32)
    i = cuda.grid(1)
    n = pos.shape[0]
    px = pos[i, 0] if i < n else float32(0)
    py = pos[i, 1] if i < n else float32(0)
    pz = pos[i, 2] if i < n else float32(0)
    ax = float32(0)
    ay = float32(0)
    az = float32(0)
    for start in range(0, n, BLOCK):
        j = start + cuda.threadIdx.x
        for d in range(3):
            tile[cuda.threadIdx.x, d] = pos[j, d] if j < n else float32(0)
        cuda.syncthreads()
        for k in range(min(BLOCK, n - start)):
            dx = tile[k, 0] - px
            dy = tile[k, 1] - py
            dz = tile[k, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + SOFTENING
            inv = 1 / (r2 * math.sqrt(r2))
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
        cuda.syncthreads()
    if i < n:
        vel[i, 0] += ax * dt
        vel[i, 1] += ay * dt
        vel[i, 2] += az * dt


def test_nbody_step():
    rng = np.random.default_rng(6)
    n = 300
    pos = rng.standard_normal((n, 3)).astype(np.float32)
    vel = np.zeros((n, 3), np.float32)
    nbody_step[(n + BLOCK - 1) // BLOCK, BLOCK](pos, vel, np.float32(0.01))
    p = pos.astype(np.float64)
    d = p[None, :, :] - p[:, None, :]
    r2 = (d**2).sum(axis=2) + SOFTENING
    acc = (d / (r2 * np.sqrt(r2))[:, :, None]).sum(axis=1)
    np.testing.assert_allclose(vel, acc * 0.01, rtol=2e-3, atol=2e-3)


@cuda.jit
def bitonic_sort(a):
    # One block sorts its BLOCK values in shared memory.
    s = cuda.shared.array(BLOCK, dtype=np.int32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    size = 2
    while size <= BLOCK:
        stride = size // 2
        while stride > 0:
            partner = t ^ stride
            if partner > t:
                ascending = (t & size) == 0
                if (s[t] > s[partner]) == ascending:
                    s[t], s[partner] = s[partner], s[t]
            cuda.syncthreads()
            stride //= 2
        size *= 2
    a[t] = s[t]


def test_bitonic_sort_of_one_block():
    rng = np.random.default_rng(7)
    a = rng.integers(-1000, 1000, BLOCK).astype(np.int32)
    expected = np.sort(a)
    bitonic_sort[1, BLOCK](a)
    np.testing.assert_array_equal(a, expected)
