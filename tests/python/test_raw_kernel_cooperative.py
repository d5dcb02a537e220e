"""Cooperative launches of CUDA C kernels (docs/cuda_c.md): CuPy's RawKernel(enable_cooperative_groups=True)
launches with cuLaunchCooperativeKernel, so that cooperative_groups::this_grid().sync() may be called, and the
toolkit's headers (cooperative_groups.h) are on NVRTC's include path. The fake driver records which launch
entry point was used; the test marked gpu runs a grid-wide barrier on a real GPU."""

import numpy as np
import pytest

import gpujit as gpu

pytestmark = pytest.mark.skipif(isinstance(gpu.toolkit_libraries()["nvrtc"], str),
                                reason="NVRTC is not installed here")

# Every thread adds 1 to a counter; after the grid-wide barrier every thread reads the full count.
GRID_SYNC = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void count_then_read(int* counter, int* seen) {
    cg::grid_group grid = cg::this_grid();
    atomicAdd(counter, 1);
    grid.sync();
    seen[grid.thread_rank()] = *counter;
}
'''


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUJIT_CACHE_DIR", str(tmp_path / "cache"))


def test_cooperative_groups_header_compiles_without_include_options():
    k = gpu.RawKernel(GRID_SYNC, "count_then_read", enable_cooperative_groups=True)
    cubin = k.compile_for("sm_90")
    assert cubin[:4] == b"\x7fELF"
    # Not relocatable code (-rdc): the driver loads it as it is (ELF e_type 2, ET_EXEC).
    assert int.from_bytes(cubin[16:18], "little") == 2
    assert k.enable_cooperative_groups and not gpu.RawKernel(GRID_SYNC, "count_then_read").enable_cooperative_groups


def test_cooperative_raw_kernel_launches_cooperatively(fake):
    counter = gpu.to_device(np.zeros(1, np.int32))
    seen = gpu.to_device(np.zeros(64, np.int32))
    coop = gpu.RawKernel(GRID_SYNC, "count_then_read", enable_cooperative_groups=True)
    before = fake.calls("cuLaunchCooperativeKernel")
    coop[2, 32](counter, seen)
    assert fake.calls("cuLaunchCooperativeKernel") == before + 1
    name, grid, block, shared, stream, params = fake.last_launch()
    assert (name, grid, block) == ("count_then_read", (2, 1, 1), (32, 1, 1))
    assert [int.from_bytes(p, "little") for p in params] == [counter.device_ctypes_pointer.value,
                                                              seen.device_ctypes_pointer.value]
    # CuPy's call form too; a kernel without the flag is an ordinary launch.
    coop((2,), (32,), (counter, seen))
    assert fake.calls("cuLaunchCooperativeKernel") == before + 2
    plain = gpu.RawKernel(GRID_SYNC, "count_then_read")
    launches = fake.calls("cuLaunchKernel")
    plain[1, 32](counter, seen)
    assert fake.calls("cuLaunchCooperativeKernel") == before + 2
    assert fake.calls("cuLaunchKernel") == launches + 1


@pytest.mark.gpu
def test_grid_sync_on_a_gpu():
    k = gpu.RawKernel(GRID_SYNC, "count_then_read", enable_cooperative_groups=True)
    blocks, threads = 8, 128
    counter = gpu.to_device(np.zeros(1, np.int32))
    seen = gpu.to_device(np.zeros(blocks * threads, np.int32))
    k[blocks, threads](counter, seen)
    np.testing.assert_array_equal(seen.copy_to_host(), blocks * threads)
