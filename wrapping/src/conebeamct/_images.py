"""Images: :class:`Image` (a float32 numpy array with spacing and origin in mm) and its kinds
:class:`Projections` and :class:`Volume`; how a function takes an image or an ``itk.Image``."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple, Type, TypeVar, Union

import numpy as np

from . import _conebeamct
from ._checks import _is_itk_image, _numbers, _shape_text, as_float32
from ._conventions import ArrayLike, Point3, VoxelSpacing

_ImageT = TypeVar("_ImageT", bound="Image")


class Image:
    """A 3D image: ``array`` (z, y, x) float32, ``spacing`` and ``origin`` (x, y, z) in mm.

    ``origin`` is the centre of the first voxel, as in ITK. The array is checked and converted as
    :func:`as_float32` says (no copy when it is already a C-contiguous float32 array).
    ``numpy.asarray(image)`` is ``image.array`` itself (no copy), so an image goes wherever numpy
    takes an array.

    Parameters
    ----------
    array : array_like, 3 dimensions (z, y, x)
        The pixels; a C-contiguous float32 array is kept without a copy, another real dtype or a
        strided view is converted to a float32 contiguous copy.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, in (x, y, z) order (the array's axes reversed), each > 0.
    origin : (x, y, z)
        The centre of the first voxel (array index [0, 0, 0]) in mm.
    """

    array: np.ndarray
    spacing: Tuple[float, float, float]
    origin: Tuple[float, float, float]

    def __init__(
        self, array: ArrayLike, spacing: VoxelSpacing = (1.0, 1.0, 1.0), origin: Point3 = (0.0, 0.0, 0.0)
    ) -> None:
        self.array = as_float32(array, "array")
        self.spacing = _numbers(spacing, "spacing", 3, "a spacing > 0 in mm, or 3 of them (x, y, z)", positive=True)
        self.origin = _numbers(origin, "origin", 3, "3 coordinates (x, y, z) in mm")
        self._base = None  # an itk.Image this array is a view of

    @property
    def shape(self) -> Tuple[int, int, int]:
        """The array's shape, (z, y, x)."""
        return self.array.shape  # type: ignore[return-value]  # always 3 dimensions

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        """The pixels for ``numpy.asarray(image)``: ``self.array``, float32 of shape (z, y, x) (for
        :class:`Projections` (projection, v, u)), without a copy unless ``dtype`` asks for another
        type or ``copy`` is True; ``copy=False`` with another dtype raises ValueError (numpy 2's rule)."""
        array = self.array
        if dtype is not None and np.dtype(dtype) != array.dtype:
            if copy is False:
                raise ValueError(
                    f"numpy.asarray(..., dtype={np.dtype(dtype)}, copy=False): the image is float32; converting "
                    "needs a copy"
                )
            return array.astype(dtype)
        return array.copy() if copy else array

    def axis(self, d: int) -> np.ndarray:
        """World coordinates (mm) of the voxel centres along axis d: 0 for x, 1 for y, 2 for z (for
        projections: u, v, projection index); a float64 array of ``shape[2 - d]`` values."""
        n = self.array.shape[2 - d]
        return self.origin[d] + self.spacing[d] * np.arange(n)

    def to_itk(self) -> Any:
        """An ``itk.Image[itk.F, 3]`` sharing this array's memory (no copy), with this spacing and
        origin (mm) and the identity direction."""
        import itk

        image = itk.GetImageViewFromArray(self.array)
        image.SetSpacing(self.spacing)
        image.SetOrigin(self.origin)
        return image

    @classmethod
    def from_itk(cls: Type[_ImageT], image: Any, name: str = "image") -> _ImageT:
        """The image of an ``itk.Image`` of 3 dimensions and identity direction: a view of its
        memory when its pixels are float32 (a converted copy otherwise)."""
        import itk

        if image.GetImageDimension() != 3:
            raise ValueError(f"{name} is an itk.Image of {image.GetImageDimension()} dimensions; expected 3")
        direction = np.asarray(itk.array_from_matrix(image.GetDirection()))
        if not np.allclose(direction, np.eye(3), rtol=0, atol=1e-9):
            raise ValueError(f"{name} has direction {direction.tolist()}; expected the identity (ConeBeamCT images are axis-aligned)")
        result = cls(
            itk.GetArrayViewFromImage(image),
            spacing=tuple(image.GetSpacing()),
            origin=tuple(image.GetOrigin()),
        )
        result._base = image
        return result

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the image to ``path`` (.mha, .mhd, .nrrd, .nii, .nii.gz, .tif), as the apps do: to a
        file beside it first, renamed into place once complete, so that a failure (a full disk, an
        interrupt) leaves a file already there as it was. Spacing and origin are written in mm."""
        _conebeamct._write_image(self.array, self.spacing, self.origin, os.fspath(path))

    def __repr__(self) -> str:
        return (
            f"<conebeamct.{type(self).__name__} array {_shape_text(self.array.shape)} (z, y, x) float32, "
            f"spacing {self.spacing}, origin {self.origin} (x, y, z) mm>"
        )


class Projections(Image):
    """A projection stack of line integrals, one slice per projection of a :class:`Geometry`.

    ``numpy.asarray(projections)`` is the (projection, v, u) array, no copy. ``info``: what made
    them, where a function says (:func:`preprocess`).

    Parameters
    ----------
    array : array_like, 3 dimensions (projection, v, u)
        The pixels (u: the detector's columns, v: its rows), converted as :class:`Image` says.
    spacing : (su, sv, 1)
        The detector's pixel size in mm, then 1 for the projection index.
    origin : (u0, v0, 0)
        The centre of the detector's first pixel in mm, then 0.
    """

    info: Dict[str, Any]


class Volume(Image):
    """A volume in world mm, y the rotation axis. ``numpy.asarray(volume)`` is the (z, y, x) array,
    no copy.

    Parameters
    ----------
    array : array_like, 3 dimensions (z, y, x)
        The voxels, converted as :class:`Image` says.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, (x, y, z) order.
    origin : (x, y, z)
        The centre of the first voxel in world mm.
    info : dict, optional
        What made it (for :func:`fdk`: the hardware and each stage's seconds), kept as ``info``.
    """

    info: Dict[str, Any]

    def __init__(
        self,
        array: ArrayLike,
        spacing: VoxelSpacing = (1.0, 1.0, 1.0),
        origin: Point3 = (0.0, 0.0, 0.0),
        info: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(array, spacing, origin)
        self.info = dict(info or {})


def _as_input(image, name, cls):
    """(image object, came from itk): accepts an :class:`Image` or an ``itk.Image``."""
    if isinstance(image, Image):
        # Re-checked: the attributes may have been replaced since.
        checked = cls.__new__(cls)
        Image.__init__(checked, image.array, image.spacing, image.origin)
        return checked, False
    if _is_itk_image(image):
        return cls.from_itk(image, name), True
    if isinstance(image, np.ndarray):
        raise TypeError(
            f"{name} is a bare numpy array; give conebeamct.{cls.__name__}(array, spacing, origin) "
            "(spacing and origin in (x, y, z) order, mm) or an itk.Image"
        )
    raise TypeError(f"{name} is a {type(image).__name__}; expected a conebeamct.{cls.__name__} or an itk.Image")
