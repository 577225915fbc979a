"""Reading image files as the command-line apps do (:func:`load`; :meth:`Image.save` writes them)."""

from __future__ import annotations

import os
from typing import Optional, Type, Union, overload

from . import _conebeamct
from ._images import Image, Projections, Volume, _ImageT

@overload
def load(path: Union[str, "os.PathLike[str]"], kind: None = None) -> Volume: ...


@overload
def load(path: Union[str, "os.PathLike[str]"], kind: Type[_ImageT]) -> _ImageT: ...


def load(path: Union[str, "os.PathLike[str]"], kind: Optional[Type[Image]] = None) -> Image:
    """Reads an image file (.mha, .mhd, .nrrd, .nii, .nii.gz, .tif, ...) as the apps do.

    Its header is checked against its data first (a file cut short raises ITKError naming the bytes
    expected and found), it must be scalar and at most 3D, and a negative spacing or flipped axes are
    put on a grid with positive spacing and the identity direction (every pixel where it was).

    Parameters
    ----------
    path : str or os.PathLike
        The image file.
    kind : Volume (default) or Projections
        What the file holds: a volume (array (z, y, x), spacing and origin (x, y, z) in mm) or a
        projection stack (array (projection, v, u), spacing (su, sv, 1), origin (u0, v0, 0) in mm: the
        third axis counts projections).

    Returns
    -------
    Volume or Projections
        An instance of ``kind``, array float32.
    """
    kind = Volume if kind is None else kind
    if kind not in (Volume, Projections, Image):
        raise TypeError(f"kind is {kind!r}; expected conebeamct.Volume or conebeamct.Projections")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"path is {name!r}: no such file (expected an image file)")
    array, spacing, origin = _conebeamct._read_image(name, kind is Projections)
    return kind(array, spacing, origin)
