"""conebeamct.breathing_signal: the phases of a breathing stack against the truth, the shroud's layout,
checked arguments."""

import numpy as np
import pytest

import conebeamct as cbct

NPROJ, V, U, PIXEL, CYCLES, FIRST = 240, 32, 24, 2.0, 6.0, 0.3


def _truth():
    return np.mod(FIRST + CYCLES * np.arange(NPROJ) / NPROJ, 1.0)


def _stack(amplitude=10.0):
    """Line integrals: a dense region below an edge at v = -5 + amplitude sin^2(pi phase) mm, a static
    edge below, and a static edge above whose strength changes with the gantry angle."""
    phases = _truth()
    v = (np.arange(V) - (V - 1) / 2) * PIXEL
    edge = -5.0 + amplitude * np.sin(np.pi * phases) ** 2
    stack = np.zeros((NPROJ, V, U), np.float32)
    stack += (v[None, :, None] < edge[:, None, None]) * 1.0
    stack += (v[None, :, None] < -20.0) * 0.5
    angle = 2 * np.pi * np.arange(NPROJ) / NPROJ
    stack += (v[None, :, None] > 15.0) * (0.3 * (1 + 0.3 * np.cos(2 * angle)))[:, None, None]
    origin = (-(U - 1) / 2 * PIXEL, -(V - 1) / 2 * PIXEL, 0.0)
    return cbct.Projections(stack, (PIXEL, PIXEL, 1.0), origin)


def _error(found, truth):
    """Largest distance along the cycle once the mean offset is taken out, and the offset."""
    d = np.exp(2j * np.pi * (found - truth))
    offset = np.angle(d.mean()) / (2 * np.pi)
    e = np.mod(found - offset - truth, 1.0)
    return float(np.max(np.minimum(e, 1 - e))), float(offset)


def test_phases_of_a_breathing_stack():
    phases, signal, shroud = cbct.breathing_signal(_stack())
    assert phases.shape == (NPROJ,) and signal.shape == (NPROJ,) and shroud.shape == (V, NPROJ)
    assert np.all(np.isfinite(phases)) and np.all((phases >= 0) & (phases < 1))
    assert np.all(np.isfinite(signal)) and np.all(np.isfinite(shroud))
    error, offset = _error(phases, _truth())
    assert error <= 0.05, error
    assert abs(offset) <= 0.05, offset  # the minima (the edge lowest) are the truth's phase 0
    # The other extreme as phase 0: half a cycle later; following the edge finds the same cycles.
    maxima, _, _ = cbct.breathing_signal(_stack(), phase_zero="maxima")
    error, offset = _error(maxima, _truth())
    assert error <= 0.05 and abs(abs(offset) - 0.5) <= 0.05, (error, offset)
    edge, edge_signal, _ = cbct.breathing_signal(_stack(), method="edge")
    assert _error(edge, _truth())[0] <= 0.05
    assert 0.7 * 10 < edge_signal.max() - edge_signal.min() < 1.3 * 10  # mm along v


def test_shroud_values():
    # Column k, row j: the edges across the rows summed along them; the moving edge's unit step gives
    # 1 / (2 * 2 mm) on the rows beside it in each of the 24 columns (no smoothing).
    _, _, shroud = cbct.breathing_signal(_stack(), sigma=0.0)
    assert np.isclose(shroud.max(), U * 1.0 / (2 * PIXEL), rtol=1e-5)
    assert shroud.min() == 0.0


def test_bad_arguments():
    stack = _stack()
    with pytest.raises(ValueError, match="method is 'pca'"):
        cbct.breathing_signal(stack, method="pca")
    with pytest.raises(ValueError, match="phase_zero is 'middle'"):
        cbct.breathing_signal(stack, phase_zero="middle")
    with pytest.raises(ValueError, match="edges is 'up'"):
        cbct.breathing_signal(stack, edges="up")
    with pytest.raises(ValueError, match="sigma is -1"):
        cbct.breathing_signal(stack, sigma=-1)
    with pytest.raises(ValueError, match="max_step is 0"):
        cbct.breathing_signal(stack, max_step=0)
    with pytest.raises(ValueError, match=r"breathing period \(projections\) is 2"):
        cbct.breathing_signal(stack, period=2.0)
    with pytest.raises(ValueError, match="nothing breathes"):
        cbct.breathing_signal(_stack(amplitude=0.0).__class__(np.ones((NPROJ, V, U), np.float32)))
    bad = np.asarray(stack).copy()
    bad[3, 4, 5] = np.nan
    with pytest.raises(ValueError):
        cbct.breathing_signal(cbct.Projections(bad, stack.spacing, stack.origin))
    with pytest.raises(TypeError):
        cbct.breathing_signal(np.asarray(stack))
