"""NumPy ufuncs and generalized ufuncs compiled for the GPU with numba's decorators (target='cuda').

Run unchanged on gpujit: `python -m gpujit run examples/numba_programs/ufuncs.py`.
"""

import math

import numpy as np
from numba import cuda, float32, float64, guvectorize, vectorize


@vectorize([float32(float32, float32, float32), float64(float64, float64, float64)], target="cuda")
def smooth_step(edge0, edge1, x):
    t = min(max((x - edge0) / (edge1 - edge0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")
def rms(row, out):
    acc = 0.0
    for v in row:
        acc += v * v
    out[0] = math.sqrt(acc / row.shape[0])


def main():
    x = np.linspace(-1.0, 2.0, 10_000).astype(np.float32)
    got = smooth_step(np.float32(0.0), np.float32(1.0), x)
    t = np.clip(x, 0.0, 1.0)
    np.testing.assert_allclose(got, t * t * (3 - 2 * t), rtol=1e-6)
    assert got.dtype == np.float32

    # Device arrays in, a device array out, with a stream: nothing goes back to the host until asked.
    stream = cuda.stream()
    d_x = cuda.to_device(x.astype(np.float64), stream=stream)
    d_out = smooth_step(0.25, 0.75, d_x, stream=stream)
    assert cuda.is_cuda_array(d_out)
    t = np.clip((x.astype(np.float64) - 0.25) / 0.5, 0.0, 1.0)
    np.testing.assert_allclose(d_out.copy_to_host(stream=stream), t * t * (3 - 2 * t), rtol=1e-12)
    stream.synchronize()

    rows = np.random.default_rng(7).standard_normal((500, 64))
    np.testing.assert_allclose(rms(rows), np.sqrt((rows ** 2).mean(axis=1)), rtol=1e-12)
    print("smooth_step and rms agree with NumPy")
    print("OK")


if __name__ == "__main__":
    main()
