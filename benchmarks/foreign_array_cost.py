"""What reading a PyTorch tensor or a CuPy array costs from Python, attribute by attribute (GPU machine).

    python benchmarks/foreign_array_cost.py

The launch path has to learn each foreign array's pointer, dtype, shape and strides on every launch; this
prints the nanoseconds each way of asking takes (best of 5 timeit rounds), so the cheapest complete set can
be chosen, and which in-place operations change a tensor's `_version` counter (whether a cache validated by
it could miss a change of shape, strides or pointer).
"""
import timeit


def cost_ns(stmt, env, number=200_000):
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=5)) / number * 1e9


def report(title, env, stmts):
    print(title)
    for s in stmts:
        print(f"  {cost_ns(s, env):8.1f} ns  {s}")


def torch_part():
    import torch
    t = torch.zeros((64, 64), device="cuda")
    report("torch " + torch.__version__, {"t": t}, [
        "t.is_cuda", "t.dtype", "t.data_ptr()", "t.shape", "t.stride()", "t.dim()", "t._version",
        "t.device", "t.storage_offset()", "t.__cuda_array_interface__", "t.requires_grad", "type(t)",
    ])
    print("in-place operations and torch's _version counter:")
    ops = {
        "t.t_()": lambda t: t.t_(),
        "t.transpose_(0, 1)": lambda t: t.transpose_(0, 1),
        "t.unsqueeze_(0)": lambda t: t.unsqueeze_(0),
        "t.resize_(32, 32)": lambda t: t.resize_(32, 32),
        "t.resize_(128, 128)": lambda t: t.resize_(128, 128),
        "t.set_(other)": lambda t: t.set_(torch.zeros(10, device="cuda")),
        "t.as_strided_((8, 8), (1, 8))": lambda t: t.as_strided_((8, 8), (1, 8)),
        "t.data = other": lambda t: setattr(t, "data", torch.zeros(7, device="cuda")),
        "t.fill_(1)": lambda t: t.fill_(1),
    }
    for name, op in ops.items():
        t = torch.zeros((64, 64), device="cuda")
        before = (t._version, t.data_ptr(), tuple(t.shape), t.stride())
        op(t)
        after = (t._version, t.data_ptr(), tuple(t.shape), t.stride())
        meta = "metadata changed" if before[1:] != after[1:] else "metadata same"
        print(f"  {name:<32} version {before[0]} -> {after[0]}  ({meta})")


def cupy_part():
    import cupy as cp
    a = cp.zeros((64, 64), cp.float32)
    report("cupy " + cp.__version__, {"a": a}, [
        "a.dtype", "a.data", "a.data.ptr", "a.shape", "a.strides", "a._c_contiguous", "a.ndim", "a.size",
        "a.__cuda_array_interface__", "type(a)",
    ])


if __name__ == "__main__":
    for part in (torch_part, cupy_part):
        try:
            part()
        except Exception as e:  # a library missing on this machine
            print(f"{part.__name__}: skipped ({type(e).__name__}: {e})")
