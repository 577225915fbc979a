"""Runs every python block of wrapping/README.md's section "Projectors, iterative methods, GPU arrays,
PyTorch", in order and in one namespace, so that the tutorial stays true (its CUDA and PyTorch parts
run where those are present)."""

import os
import re

# CBCT_README: where the README is when the tests run outside the tree (scripts/wheel.sh --test).
README = os.environ.get("CBCT_README") or os.path.join(os.path.dirname(__file__), "..", "README.md")
SECTION = "## Projectors, iterative methods, GPU arrays, PyTorch"


def test_tutorial_runs(work, capsys):
    with open(README, encoding="utf-8") as f:
        text = f.read()
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    blocks = re.findall(r"```python\n(.*?)```", text[start:end], re.S)
    assert len(blocks) >= 3, blocks
    namespace = {}
    cwd = os.getcwd()
    os.chdir(work)
    try:
        for block in blocks:
            exec(compile(block, README, "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert namespace["y"].shape == (60, 64, 64) and namespace["xt"].shape == (48, 48, 48)
    assert len(namespace["cgls"].info["residual_norms"]) == 3
    assert namespace["more"].info["iterations"] == 2
