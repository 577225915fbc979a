"""conebeamct.torch: autograd Functions of the projectors, gradcheck in double (CPU; CUDA where there is one).
Skipped without PyTorch."""

import numpy as np
import pytest

import conebeamct as cbct

torch = pytest.importorskip("torch")
from conebeamct.torch import BackProject, ForwardProject, back_project, forward_project  # noqa: E402


def _projector(hardware="cpu", **options):
    geometry = cbct.Geometry.circular(5, sid=200, sdd=300)
    return cbct.Projector(geometry, (4, 5, 6), (7, 6), 2.0, 3.0, hardware=hardware, **options)


def _devices():
    devices = ["cpu"]
    if cbct.has_cuda_arrays() and cbct.cuda_device() is not None and torch.cuda.is_available():
        devices.append("cuda")
    return devices


@pytest.mark.parametrize("device", _devices())
def test_gradcheck(device):
    A = _projector("cpu" if device == "cpu" else "cuda")
    # The library computes in float32: zero-valued inputs keep the rounding of the finite differences
    # far below the tolerances (the operator is linear, so the point does not matter).
    x = torch.zeros(A.volume_shape, dtype=torch.float64, device=device, requires_grad=True)
    y = torch.zeros(A.projection_shape, dtype=torch.float64, device=device, requires_grad=True)
    # On the GPU the forward projection samples through the texture unit (bilinear weights with 8
    # fraction bits) while its gradient is the exact transpose of the exact weights: a Jacobian entry
    # (the weights of a voxel along a ray, at most two samples of weight <= 1) then differs by up to
    # about 2/256 (0.0036 seen on the H100), against the 1 a wrong transpose would miss by.
    atol, rtol = (1e-4, 1e-3) if device == "cpu" else (1e-2, 2e-2)
    assert torch.autograd.gradcheck(lambda v: ForwardProject.apply(v, A), (x,), eps=1e-2, atol=atol, rtol=rtol)
    assert torch.autograd.gradcheck(lambda p: BackProject.apply(p, A), (y,), eps=1e-2, atol=atol, rtol=rtol)


@pytest.mark.parametrize("device", _devices())
def test_matches_the_projector_and_batches(device):
    A = _projector("cpu" if device == "cpu" else "cuda")
    rng = np.random.default_rng(3)
    x = rng.random((2,) + A.volume_shape, dtype=np.float32)
    tensor = torch.tensor(x, device=device, requires_grad=True)
    y = forward_project(tensor, A)
    assert y.shape == (2,) + A.projection_shape and y.dtype == torch.float32 and y.device.type == device
    A_host = _projector("cpu")
    for i in range(2):
        expected = A_host.forward(x[i])
        got = y[i].detach().cpu().numpy()
        if device == "cpu":
            assert np.array_equal(got, expected)
        else:
            # The texture unit's 8-bit weights on random voxels (not a smooth phantom): 6e-4 on the H100.
            assert np.linalg.norm(got - expected) <= 2e-3 * np.linalg.norm(expected)
    # d/dx of <A x, w> is A^T w.
    w = torch.tensor(rng.random(y.shape, dtype=np.float32), device=device)
    (y * w).sum().backward()
    back = back_project(w, A)
    assert torch.equal(tensor.grad, back)


def test_refuses_what_it_cannot_differentiate():
    A = _projector(backprojector="voxel")
    with pytest.raises(ValueError, match="autograd needs 'adjoint'"):
        forward_project(torch.zeros(A.volume_shape), A)
    A = _projector()
    with pytest.raises(ValueError, match=r"volume has shape \(4, 5\); expected \(\.\.\., 4, 5, 6\)"):
        forward_project(torch.zeros(4, 5), A)
    with pytest.raises(TypeError, match="floating-point"):
        forward_project(torch.zeros(A.volume_shape, dtype=torch.int32), A)
    with pytest.raises(TypeError, match="expected a conebeamct.Projector"):
        forward_project(torch.zeros(A.volume_shape), "A")
    # A CPU tensor through the projector directly: a torch tensor back, no copy of the result.
    y = A.forward(torch.ones(A.volume_shape))
    assert isinstance(y, torch.Tensor) and y.shape == A.projection_shape
