"""gpujit kernels inside PyTorch's torch.distributed: one process per GPU, NCCL all-reduce of their results.

Each process owns one GPU (its rank's), takes its shard of the data as PyTorch tensors on that GPU, runs gpujit
kernels on the tensors directly (no copies: gpujit reads them through DLPack / the CUDA array interface) and
combines the per-GPU results with torch.distributed.all_reduce over NCCL. Every rank checks its shard and
rank 0 checks the combined results against NumPy on the whole data.

    python examples/multi_gpu_torch.py --processes 2        # starts the processes itself (torch.multiprocessing)
    torchrun --nproc_per_node=2 examples/multi_gpu_torch.py  # or let torchrun start them

Needs PyTorch built with CUDA and NCCL, and a GPU per process.
"""
# gpujit-sig: affine void(int32[::1], float64[::1], float64, float64)
# gpujit-sig: bin_count void(int32[::1], int32[::1])
import argparse
import os
import socket
import sys

import numpy as np

import gpujit as gpu

N = 1 << 22
BINS = 64
A, B = 0.5, -3.0


@gpu.jit
def affine(x, y, a, b):
    i = gpu.grid(1)
    if i < x.size:
        y[i] = a * x[i] + b


@gpu.jit
def bin_count(x, hist):
    i = gpu.grid(1)
    if i < x.size:
        gpu.atomic.add(hist, x[i] % hist.size, 1)


def full_data():
    """The whole input, the same in every process."""
    return np.random.default_rng(11).integers(0, 100000, N, dtype=np.int32)


def run(rank, world):
    import torch
    import torch.distributed as dist

    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    try:
        x_all = full_data()
        shard = np.array_split(x_all, world)[rank]
        dev = torch.device("cuda", local)
        x = torch.from_numpy(shard).to(dev)
        y = torch.empty(x.shape, dtype=torch.float64, device=dev)
        hist = torch.zeros(BINS, dtype=torch.int32, device=dev)
        threads = 256
        blocks = (x.numel() + threads - 1) // threads
        with gpu.gpus[local]:  # this process's GPU: the tensors' device
            affine[blocks, threads](x, y, A, B)
            bin_count[blocks, threads](x, hist)
            gpu.synchronize()  # gpujit's work is done before NCCL reads the tensors
        np.testing.assert_allclose(y.cpu().numpy(), A * shard.astype(np.float64) + B, rtol=1e-15)

        total = y.sum().reshape(1)  # PyTorch's own kernel on gpujit's output
        dist.all_reduce(hist)       # NCCL sums the per-GPU histograms and totals over every process
        dist.all_reduce(total)
        if rank == 0:
            expected_hist = np.bincount(x_all % BINS, minlength=BINS)
            np.testing.assert_array_equal(hist.cpu().numpy(), expected_hist)
            expected_total = (A * x_all.astype(np.float64) + B).sum()
            np.testing.assert_allclose(total.item(), expected_total, rtol=1e-12)
            print(f"multi_gpu_torch: {world} processes, one GPU each ({torch.cuda.get_device_name(local)}): "
                  f"all-reduce of gpujit results matches NumPy ({N} elements, {BINS} bins)")
    finally:
        dist.destroy_process_group()


def spawned(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    run(rank, world)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=0, help="processes (GPUs) to use; default: every GPU")
    args = parser.parse_args()
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        print("multi_gpu_torch: cannot run kernels on this machine: PyTorch is not installed")
        return 0
    if not torch.cuda.is_available() or not dist.is_available() or not dist.is_nccl_available():
        print("multi_gpu_torch: cannot run kernels on this machine: PyTorch has no CUDA GPU or no NCCL here")
        return 0
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun
        run(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
        return 0
    world = args.processes or torch.cuda.device_count()
    if world > torch.cuda.device_count():
        print(f"multi_gpu_torch: {world} processes need {world} GPUs; PyTorch sees {torch.cuda.device_count()}")
        return 1
    import torch.multiprocessing as mp

    mp.spawn(spawned, args=(world, free_port()), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
