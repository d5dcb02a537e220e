"""A process forked after the CUDA driver was initialized cannot use it: its CUDA work raises CudaDriverError
("CUDA initialized before forking", numba-cuda's class and words), which pickles back to the parent, and the
arrays it inherited are let go of without a driver call. The CUDA errors pickle by name, as the class the
unpickling process raises under that name."""

import concurrent.futures
import gc
import multiprocessing as mp
import pickle

import numpy as np
import pytest

import gpujit as gpu
from gpujit import errors


def forked_pool():
    return concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("fork"))


def drop_inherited(array):
    """In the child: let go of an array the parent allocated (the parent owns its memory)."""
    del array
    gc.collect()
    return "dropped"


def drop_everything():
    """In the child: let go of every gpujit object it inherited (arrays, a stream) and collect them."""
    global INHERITED
    INHERITED = None
    gc.collect()
    return "ok"


INHERITED = None


def test_cuda_work_in_a_forked_child_raises_cuda_driver_error(cuda):
    parent = gpu.to_device(np.arange(4))  # the driver is initialized here
    with forked_pool() as pool:
        future = pool.submit(gpu.to_device, np.arange(1))
        with pytest.raises(gpu.CudaDriverError, match="CUDA initialized before forking") as info:
            future.result()
        assert "spawn" in str(info.value)  # and how to do it instead
        assert pool.submit(drop_inherited, None).result() == "dropped"
    np.testing.assert_array_equal(parent.copy_to_host(), np.arange(4))  # the parent is unaffected


def test_a_forked_child_lets_go_of_inherited_arrays_without_the_driver(cuda):
    global INHERITED
    INHERITED = [gpu.to_device(np.arange(1000)) for _ in range(3)] + [gpu.stream(), gpu.event()]
    inherited = INHERITED[0]
    with forked_pool() as pool:
        # The child's copies of the arrays, stream and event are freed there: no driver call, no error.
        assert pool.submit(drop_everything).result() == "ok"
    assert inherited.copy_to_host()[999] == 999
    INHERITED = None


def test_cuda_errors_pickle_as_the_class_raised_under_their_name():
    err = gpu.CudaAPIError("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)")
    err.function, err.code, err.name, err.recoverable = "cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY", True
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is gpu.CudaAPIError and str(back) == str(err)
    assert (back.function, back.code, back.name) == ("cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY")

    # A class made at run time (the numba shim's, which also derives from numba's) does not pickle by its
    # module and name; gpujit's errors are rebuilt as the class raised under their name where they arrive.
    class Shimmed(gpu.CudaDriverError):
        pass

    Shimmed.__name__ = Shimmed.__qualname__ = "CudaDriverError"
    Shimmed.__module__ = "gpujit.errors"
    errors._raised["CudaDriverError"] = Shimmed
    try:
        back = pickle.loads(pickle.dumps(Shimmed("CUDA initialized before forking")))
        assert type(back) is Shimmed and str(back) == "CUDA initialized before forking"
    finally:
        errors._raised.pop("CudaDriverError")
    assert type(pickle.loads(pickle.dumps(gpu.CudaDriverError("x")))) is gpu.CudaDriverError


def test_an_error_class_of_the_programs_own_pickles_as_itself():
    back = pickle.loads(pickle.dumps(ProgramError("mine")))
    assert type(back) is ProgramError and str(back) == "mine"


class ProgramError(gpu.CudaError):
    pass
