"""Moves particles under gravity with CUDA's vector types (float32x3 positions and velocities).

Run unchanged on gpujit: `python -m gpujit run examples/numba_programs/particles.py`.
"""

import numpy as np
import math

from numba import cuda, float32, int64, void

DT = float32(0.01)
G = float32(-9.81)


@cuda.jit(device=True)
def step(p, v):
    # A bounce off the floor at z = 0 reverses the vertical velocity, losing a fifth of it.
    vz = v.z + G * DT
    z = p.z + vz * DT
    if z < 0:
        z = -z
        vz = -vz * float32(0.8)
    return cuda.float32x3(p.x + v.x * DT, p.y + v.y * DT, z), cuda.float32x3(v.x, v.y, vz)


@cuda.jit(void(float32[:, ::1], float32[:, ::1], float32[::1], int64))
def simulate(pos, vel, speed, steps):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    p = cuda.float32x3(pos[i, 0], pos[i, 1], pos[i, 2])
    v = cuda.float32x3(vel[i, 0], vel[i, 1], vel[i, 2])
    for _ in range(steps):
        p, v = step(p, v)
    pos[i, 0], pos[i, 1], pos[i, 2] = p.x, p.y, p.z
    vel[i, 0], vel[i, 1], vel[i, 2] = v.x, v.y, v.z
    speed[i] = math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)


def reference(pos, vel, steps):
    pos, vel = pos.copy(), vel.copy()
    for _ in range(steps):
        vz = vel[:, 2] + G * DT
        z = pos[:, 2] + vz * DT
        bounce = z < 0
        z = np.where(bounce, -z, z)
        vz = np.where(bounce, -vz * np.float32(0.8), vz)
        pos[:, 0] += vel[:, 0] * DT
        pos[:, 1] += vel[:, 1] * DT
        pos[:, 2], vel[:, 2] = z, vz
    return pos, vel


def main():
    n, steps = 1000, 200
    rng = np.random.default_rng(1)
    pos = rng.uniform(0, 10, (n, 3)).astype(np.float32)
    vel = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    d_pos, d_vel = cuda.to_device(pos), cuda.to_device(vel)
    d_speed = cuda.device_array(n, dtype=np.float32)
    simulate[(n + 127) // 128, 128](d_pos, d_vel, d_speed, steps)
    want_pos, want_vel = reference(pos, vel, steps)
    np.testing.assert_allclose(d_pos.copy_to_host(), want_pos, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(d_vel.copy_to_host(), want_vel, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(d_speed.copy_to_host(), np.linalg.norm(want_vel, axis=1), rtol=1e-4, atol=1e-3)
    print(f"{n} particles, {steps} steps: positions agree with NumPy")
    print("OK")


if __name__ == "__main__":
    main()
