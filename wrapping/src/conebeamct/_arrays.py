"""What a function of conebeamct accepts as an array, and what it gives back.

An argument may be a numpy array, a :class:`conebeamct.Image`, an ``itk.Image``, a PyTorch tensor
(CPU or CUDA) or a CuPy array. Host data reaches the library as a float32 numpy array (without a
copy where it is one already, or a PyTorch CPU float32 tensor); CUDA data goes to it as it is,
through ``__cuda_array_interface__`` or DLPack, and stays on its device. The result is given back
in the caller's kind: numpy in, numpy out; torch in, torch out (on the same device); CuPy in, CuPy
out.
"""

import sys

import numpy as np


def _module_of(obj):
    return type(obj).__module__.split(".")[0]


def is_torch(obj):
    return _module_of(obj) == "torch" and "torch" in sys.modules and isinstance(obj, sys.modules["torch"].Tensor)


def is_cupy(obj):
    return _module_of(obj) == "cupy"


def is_device_array(obj):
    """Whether ``obj`` lives on a CUDA device (a CUDA tensor, a CuPy array, anything with
    ``__cuda_array_interface__``)."""
    if is_torch(obj):
        return obj.is_cuda
    return hasattr(obj, "__cuda_array_interface__")


class Kind:
    """How to give a result back in the kind of array an argument was."""

    def __init__(self, obj):
        self.torch = is_torch(obj)
        self.cupy = is_cupy(obj)
        self.device = obj.device if self.torch else None

    def wrap(self, result):
        """``result`` (a numpy array or a conebeamct DeviceArray) in the argument's kind, no copy."""
        if self.torch:
            import torch

            if isinstance(result, np.ndarray):
                return torch.from_numpy(result)
            return torch.from_dlpack(result)
        if self.cupy:
            import cupy

            if isinstance(result, np.ndarray):
                return cupy.asarray(result)
            return cupy.from_dlpack(result)
        return result


def library_array(obj, name, shape_text="3 dimensions (z, y, x)"):
    """``obj`` as the library takes it: a C-contiguous float32 numpy array for host data (converted
    as :func:`conebeamct.as_float32` says), the object itself for CUDA data (checked by the library:
    float32, C-contiguous, 3 dimensions)."""
    from ._checks import as_float32

    if obj is None or isinstance(obj, (str, bytes, dict)):
        raise TypeError(f"{name} is a {type(obj).__name__}; expected an array (numpy, PyTorch, CuPy) or an image")
    if is_torch(obj):
        if obj.is_cuda:
            return obj.detach()
        obj = obj.detach().numpy()  # a view; a dtype other than float32 is converted below
    elif is_device_array(obj):
        return obj
    return as_float32(obj, name, 3, shape_text)
