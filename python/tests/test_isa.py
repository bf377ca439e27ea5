"""The instruction-set cap from Python: set_max_isa / max_isa / effective_isa / isa_report,
GRIDOPS_MAX_ISA read at import, and results under a cap within the stated bounds of the
uncapped ones (bit-exact for nearest and data movement)."""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import gridops

X86 = platform.machine() in ("x86_64", "AMD64")
LEVELS = ["scalar", "sse4", "avx2", "avx512", "avx512_bf16"] if X86 else ["scalar", "neon", "sve", "sve2"]


@pytest.fixture
def restore_cap():
    saved = gridops.max_isa()
    yield
    gridops.set_max_isa(saved)


def test_levels_and_refusals(restore_cap):
    applied = 0
    for level in LEVELS:
        try:
            gridops.set_max_isa(level)
        except ValueError as e:  # only below the build's baseline
            assert "baseline" in str(e)
            continue
        applied += 1
        assert gridops.max_isa() == level
        assert f"cap: {level} (from set_max_isa)" in gridops.isa_report()
        assert LEVELS.index(gridops.effective_isa()) <= LEVELS.index(level)
    assert applied > 0
    gridops.set_max_isa("native")
    assert gridops.max_isa() == "native"
    before = gridops.max_isa()
    for bad in ("avx9", "AVX2", "neon" if X86 else "avx2"):
        with pytest.raises(ValueError, match=r"set_max_isa: level must be one of \{"):
            gridops.set_max_isa(bad)
        assert gridops.max_isa() == before
    with pytest.raises(TypeError):
        gridops.set_max_isa(2)  # type: ignore[arg-type]


def test_results_under_every_cap(restore_cap, rng):
    x = rng.standard_normal((2, 3, 17, 23)).astype(np.float32)
    g = rng.uniform(-1.1, 1.1, (2, 9, 11, 2)).astype(np.float32)
    gridops.set_max_isa("native")
    want_lin = gridops.grid_sample(x, g, "bilinear", "border")
    want_near = gridops.grid_sample(x, g, "nearest", "reflection")
    want_pad = gridops.pad(x, [(0, 0), (0, 0), (3, 4), (5, 2)], "reflect")
    want_rs = gridops.resample(x, (31, 12), mode="linear")
    for level in LEVELS:
        try:
            gridops.set_max_isa(level)
        except ValueError:
            continue
        np.testing.assert_allclose(gridops.grid_sample(x, g, "bilinear", "border"), want_lin,
                                   rtol=0, atol=1e-5, err_msg=level)
        assert np.array_equal(gridops.grid_sample(x, g, "nearest", "reflection"), want_near), level
        assert np.array_equal(gridops.pad(x, [(0, 0), (0, 0), (3, 4), (5, 2)], "reflect"), want_pad), level
        np.testing.assert_allclose(gridops.resample(x, (31, 12), mode="linear"), want_rs,
                                   rtol=0, atol=1e-5, err_msg=level)


def test_environment_cap_read_at_import():
    level = "sse4" if X86 else "neon"
    env = dict(os.environ, GRIDOPS_MAX_ISA=level)
    code = "import gridops; print(gridops.max_isa()); print(gridops.isa_report())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    if "baseline" in out.stderr:
        pytest.skip("this build cannot run below its baseline: " + out.stderr.strip())
    assert out.stdout.splitlines()[0] == level
    assert f"cap: {level} (from GRIDOPS_MAX_ISA)" in out.stdout
    env["GRIDOPS_MAX_ISA"] = "bogus"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines()[0] == "native"
    assert "GRIDOPS_MAX_ISA='bogus' ignored" in out.stderr
