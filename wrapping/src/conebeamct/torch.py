"""PyTorch autograd Functions of the projectors (PyTorch is optional: import this module only with it).

``ForwardProject.apply(x, A)`` is y = A x for a :class:`conebeamct.Projector` ``A``; its backward is
the exact adjoint, grad_x = A^T grad_y. ``BackProject.apply(y, A)`` is x = A^T y, whose backward is
grad_y = A grad_x. Both run where the tensor is: a CPU tensor with a CPU projector, a CUDA tensor
with a CUDA projector on its device (no host copy). The library computes in float32: a tensor of
another floating dtype (float64 for gradcheck) is converted to float32 for the projection and the
result converted back. Leading dimensions beyond the last three (batch, channel) are looped over.

The projector must pair its forward projector with its exact adjoint (``backprojector='adjoint'``,
the default): with the voxel-based backprojector the gradients would be of another operator.

    import torch
    import conebeamct as cbct
    from conebeamct.torch import forward_project

    A = cbct.Projector(geometry, 64, 96, 2.0, 2.0, hardware="cuda")
    x = torch.zeros(64, 64, 64, device="cuda", requires_grad=True)
    loss = ((forward_project(x, A) - measured) ** 2).sum()
    loss.backward()        # x.grad = 2 A^T (A x - measured)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Tuple

import torch

if TYPE_CHECKING:
    from . import Projector

__all__ = ["BackProject", "ForwardProject", "back_project", "forward_project"]


def _check(projector: Projector) -> Projector:
    from . import Projector

    if not isinstance(projector, Projector):
        raise TypeError(f"projector is a {type(projector).__name__}; expected a conebeamct.Projector")
    if projector.backprojector != "adjoint":
        raise ValueError(f"projector has backprojector {projector.backprojector!r}; autograd needs 'adjoint' (the "
                         "forward projector's exact transpose)")
    return projector


def _apply(projector: Projector, tensor: torch.Tensor, forward: bool) -> torch.Tensor:
    """A tensor (..., *shape) through the projector, in tensor's dtype and device."""
    shape_in = projector.volume_shape if forward else projector.projection_shape
    name = "volume" if forward else "projections"
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} is a {type(tensor).__name__}; expected a torch.Tensor")
    if not tensor.is_floating_point():
        raise TypeError(f"{name} has dtype {tensor.dtype}; expected a floating-point tensor")
    if tuple(tensor.shape[-3:]) != tuple(shape_in):
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}; expected (..., {', '.join(map(str, shape_in))})")
    batch = tensor.shape[:-3]
    flat = tensor.detach().to(torch.float32).contiguous().reshape((-1,) + tuple(shape_in))
    apply = projector.forward if forward else projector.back
    results = [apply(flat[i]) for i in range(flat.shape[0])]
    out = torch.stack(results) if len(results) > 1 else results[0].unsqueeze(0)
    shape_out = projector.projection_shape if forward else projector.volume_shape
    return out.reshape(tuple(batch) + tuple(shape_out)).to(tensor.dtype)


class ForwardProject(torch.autograd.Function):
    """y = A x; backward: A^T."""

    @staticmethod
    def forward(ctx: Any, volume: torch.Tensor, projector: Projector) -> torch.Tensor:  # type: ignore[override]
        ctx.projector = _check(projector)
        return _apply(projector, volume, True)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Tuple[torch.Tensor, None]:  # type: ignore[override]
        return _apply(ctx.projector, grad, False), None


class BackProject(torch.autograd.Function):
    """x = A^T y; backward: A."""

    @staticmethod
    def forward(ctx: Any, projections: torch.Tensor, projector: Projector) -> torch.Tensor:  # type: ignore[override]
        ctx.projector = _check(projector)
        return _apply(projector, projections, False)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Tuple[torch.Tensor, None]:  # type: ignore[override]
        return _apply(ctx.projector, grad, True), None


def forward_project(volume: torch.Tensor, projector: Projector) -> torch.Tensor:
    """A x with autograd (:class:`ForwardProject`): ``volume`` a floating tensor (..., nz, ny, nx)
    (z, y, x; leading batch dimensions looped over) on the projector's device; returns the
    projections (..., projections, V, U) in its dtype, line integrals in (volume's unit) x mm."""
    return ForwardProject.apply(volume, projector)


def back_project(projections: torch.Tensor, projector: Projector) -> torch.Tensor:
    """A^T y with autograd (:class:`BackProject`): ``projections`` a floating tensor
    (..., projections, V, U) on the projector's device; returns the volume (..., nz, ny, nx) (z, y, x)
    in its dtype."""
    return BackProject.apply(projections, projector)
