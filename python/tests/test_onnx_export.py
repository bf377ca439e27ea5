"""ONNX export of modules using gridops.torch (docs/onnx.md, "Exporting gridops.torch models
to ONNX"): the graph holds the expected nodes, onnx.checker accepts it, and the gridops
runner (in-process through gridops.onnx, and the `gridops run` command) gives the module's
output bit for bit (it runs the same kernels).

ONNX Runtime is not run here: Debian 12 does not package it."""

import io
import os
import shutil
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx.checker", reason="the onnx Python package (python3-onnx) is not installed")
import torch.nn.functional as F  # noqa: E402
import onnx  # noqa: E402
import onnx.numpy_helper  # noqa: E402

import gridops.torch as gt  # noqa: E402

go = pytest.importorskip("gridops.onnx", reason="gridops was built without its ONNX front end")

# onnx.checker knows the operators of opset 20 (AffineGrid) from onnx 1.15; Debian 12 has 1.12.
CHECKER_KNOWS_20 = onnx.defs.onnx_opset_version() >= 20


def gridops_command():
    """The `gridops` command: $GRIDOPS_CLI, else $GRIDOPS_BUILD_DIR/gridops (CTest sets it),
    else `gridops` on PATH; None when there is none."""
    for path in (os.environ.get("GRIDOPS_CLI"),
                 os.path.join(os.environ["GRIDOPS_BUILD_DIR"], "gridops") if os.environ.get("GRIDOPS_BUILD_DIR") else None,
                 shutil.which("gridops")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def export(module, args, opset, names, outputs=("y",), **kwargs):
    """The model as an onnx.ModelProto, exported by export_onnx (which also runs onnx.checker
    when onnx knows the opset)."""
    f = io.BytesIO()
    gt.export_onnx(module, args, f, opset=opset, input_names=list(names), output_names=list(outputs), **kwargs)
    return onnx.load_from_string(f.getvalue())


def op_types(model):
    return [(n.domain, n.op_type) for n in model.graph.node]


def attrs(node):
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def run_in_process(model, tmp_path, feeds):
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    m = go.Model(path)
    m.check_supported()
    return m.run({k: v.numpy() for k, v in feeds.items()})


def check_full(model):
    onnx.checker.check_model(model, full_check=True)


class Sample(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x, grid):
        return gt.grid_sample(x, grid, **self.kw)


class SpatialTransformer(torch.nn.Module):
    """affine_grid + grid_sample, the pattern of examples/spatial_transformer_train.py."""

    def __init__(self, out_size, mode="bilinear", padding_mode="zeros", align_corners=False):
        super().__init__()
        self.out_size, self.mode, self.padding_mode, self.align = out_size, mode, padding_mode, align_corners

    def forward(self, x, theta):
        grid = gt.affine_grid(theta, self.out_size, align_corners=self.align)
        return gt.grid_sample(x, grid, self.mode, self.padding_mode, self.align)


def grid_of(rng, shape, spread=1.3):
    # beyond [-1, 1] so that every padding mode matters
    return torch.from_numpy(rng.uniform(-spread, spread, shape).astype(np.float32))


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_exports_to_gridsample_16(rng, tmp_path, mode, padding, align):
    x = torch.from_numpy(rng.standard_normal((2, 3, 5, 7)).astype(np.float32))
    grid = grid_of(rng, (2, 4, 6, 2))
    module = Sample(mode=mode, padding_mode=padding, align_corners=align)
    f = io.BytesIO()
    torch.onnx.export(module, (x, grid), f, opset_version=16, input_names=["x", "grid"], output_names=["y"])
    model = onnx.load_from_string(f.getvalue())
    assert op_types(model) == [("", "GridSample")]
    node = model.graph.node[0]
    assert list(node.input) == ["x", "grid"] and list(node.output) == ["y"]
    assert attrs(node) == {"mode": mode, "padding_mode": padding, "align_corners": int(align)}
    assert {o.domain: o.version for o in model.opset_import} == {"": 16}
    check_full(model)
    out = run_in_process(model, tmp_path, {"x": x, "grid": grid})["y"]
    np.testing.assert_array_equal(out, module(x, grid).numpy())


@pytest.mark.parametrize("opset", [17, 20])
def test_grid_sample_at_opsets_17_and_20(rng, tmp_path, opset):
    # the aliases linear/cubic export as the opset's own names
    x = torch.from_numpy(rng.standard_normal((1, 2, 6, 5)).astype(np.float64))
    grid = grid_of(rng, (1, 3, 4, 2)).double()
    for mode, at16, at20 in (("linear", "bilinear", "linear"), ("cubic", "bicubic", "cubic"),
                             ("bicubic", "bicubic", "cubic"), ("nearest", "nearest", "nearest")):
        module = Sample(mode=mode, padding_mode="reflection", align_corners=True)
        model = export(module, (x, grid), opset, ["x", "grid"])
        assert op_types(model) == [("", "GridSample")]
        assert attrs(model.graph.node[0])["mode"] == (at20 if opset >= 20 else at16)
        assert {o.domain: o.version for o in model.opset_import} == {"": opset}
        if opset <= 17 or CHECKER_KNOWS_20:
            check_full(model)
        out = run_in_process(model, tmp_path, {"x": x, "grid": grid})["y"]
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out, module(x, grid).numpy())


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("align", [False, True])
def test_spatial_transformer_exports_to_affinegrid_and_gridsample_20(rng, tmp_path, rank, align):
    n, c = 2, 3
    x = torch.from_numpy(rng.standard_normal((n, c) + (6, 7, 5)[:rank]).astype(np.float32))
    theta = torch.from_numpy((np.eye(rank, rank + 1) + rng.uniform(-0.3, 0.3, (n, rank, rank + 1))).astype(np.float32))
    module = SpatialTransformer((n, c) + (4, 5, 3)[:rank], "bilinear", "border", align)
    model = export(module, (x, theta), 20, ["x", "theta"])
    assert op_types(model) == [("", "Constant"), ("", "AffineGrid"), ("", "GridSample")]
    const, ag, gs = model.graph.node
    assert list(ag.input) == ["theta", const.output[0]] and list(gs.input) == ["x", ag.output[0]]
    assert onnx.numpy_helper.to_array(attrs(const)["value"]).tolist() == [n, c] + [4, 5, 3][:rank]
    assert attrs(ag) == {"align_corners": int(align)}
    assert attrs(gs) == {"mode": "linear", "padding_mode": "border", "align_corners": int(align)}
    assert {o.domain: o.version for o in model.opset_import} == {"": 20}  # no custom domain left
    if CHECKER_KNOWS_20:
        check_full(model)
    # gridops' runner checks every node against its opset-20 schema (attributes, types)
    out = run_in_process(model, tmp_path, {"x": x, "theta": theta})["y"]
    np.testing.assert_array_equal(out, module(x, theta).numpy())


def test_custom_domain_where_onnx_has_no_operator_at_opset_17(rng, tmp_path):
    class Mixed(torch.nn.Module):
        def forward(self, x, theta, v, grid3, xl, gridl):
            a = gt.grid_sample(x, gt.affine_grid(theta, (1, 2, 4, 5), align_corners=True), align_corners=True)
            b = gt.grid_sample(v, grid3, "nearest", "reflection")                # 3-D
            c = gt.grid_sample(xl, gridl, "bicubic", "border", layout="channels_last")
            return a, b, c

    feeds = {"x": torch.randn(1, 2, 6, 7), "theta": torch.randn(1, 2, 3) * 0.5,
             "v": torch.randn(1, 2, 3, 4, 5), "grid3": grid_of(rng, (1, 2, 3, 2, 3)),
             "xl": torch.randn(1, 6, 7, 2), "gridl": grid_of(rng, (1, 3, 4, 2))}
    model = export(Mixed(), tuple(feeds.values()), 17, list(feeds), outputs=["a", "b", "c"])
    assert op_types(model) == [("ai.gridops", "AffineGrid"), ("", "GridSample"),
                               ("ai.gridops", "GridSample"), ("ai.gridops", "GridSample")]
    ag, gs, gs3, gsl = model.graph.node
    assert attrs(ag) == {"size": [1, 2, 4, 5], "align_corners": 1}
    assert attrs(gs3) == {"mode": "nearest", "padding_mode": "reflection", "align_corners": 0,
                          "layout": "channels_first"}
    assert attrs(gsl) == {"mode": "cubic", "padding_mode": "border", "align_corners": 0, "layout": "channels_last"}
    assert {o.domain: o.version for o in model.opset_import} == {"": 17, "ai.gridops": 1}
    check_full(model)  # the checker does not look into custom domains
    # the gridops runner runs the custom nodes too (docs/onnx.md), bit for bit
    outs = run_in_process(model, tmp_path, feeds)
    for name, want in zip(("a", "b", "c"), Mixed()(*feeds.values())):
        np.testing.assert_array_equal(outs[name], want.numpy())

    # at opset 20 only the channels-last node stays custom
    up = gt.upgrade_onnx(model, 20)
    assert op_types(up) == [("", "Constant"), ("", "AffineGrid"), ("", "GridSample"), ("", "GridSample"),
                            ("ai.gridops", "GridSample")]
    assert {o.domain: o.version for o in up.opset_import} == {"": 20, "ai.gridops": 1}
    assert attrs(up.graph.node[3]) == {
        "mode": "nearest", "padding_mode": "reflection", "align_corners": 0}
    assert attrs(up.graph.node[4])["layout"] == "channels_last"
    assert op_types(model)[0] == ("ai.gridops", "AffineGrid")  # the input is not modified

    # without the channels-last output the upgraded model runs, and matches
    up.graph.node.pop()
    del up.graph.output[2]
    for name in ("xl", "gridl"):
        (i,) = [k for k, v in enumerate(up.graph.input) if v.name == name]
        del up.graph.input[i]
    del up.opset_import[[o.domain for o in up.opset_import].index("ai.gridops")]
    out = run_in_process(up, tmp_path, {k: v for k, v in feeds.items() if k not in ("xl", "gridl")})
    a, b, _ = Mixed()(*feeds.values())
    np.testing.assert_array_equal(out["a"], a.numpy())
    np.testing.assert_array_equal(out["b"], b.numpy())


def test_every_autograd_function_has_a_symbolic():
    # without one torch 1.13 inlines the forward, whose DLPack call it cannot trace: the graph
    # became a lone Constant
    functions = [v for v in vars(gt).values()
                 if isinstance(v, type) and issubclass(v, torch.autograd.Function) and v is not torch.autograd.Function]
    assert len(functions) >= 3
    for fn in functions:
        assert "symbolic" in vars(fn), fn.__name__
    with pytest.raises(gt.OnnxExportError, match=r"affine_grid \(its gradient\).*cannot be exported"):
        gt._AffineGridBackwardFunction.symbolic(None, None, (1, 1, 2, 2), False)


def test_never_a_constant_graph(rng):
    x, grid = torch.randn(1, 2, 5, 6), grid_of(rng, (1, 3, 4, 2))
    f = io.BytesIO()
    # torch's default opset (14) has no GridSample: an error naming the function and the fix
    with pytest.raises(gt.OnnxExportError, match=r"gridops\.torch\.grid_sample: .* opset 14: ONNX has "
                                                 r"GridSample from opset 16"):
        torch.onnx.export(Sample(), (x, grid), f, input_names=["x", "grid"])
    f = io.BytesIO()
    torch.onnx.export(Sample(), (x, grid), f, opset_version=16, input_names=["x", "grid"])
    model = onnx.load_from_string(f.getvalue())
    assert [i.name for i in model.graph.input] == ["x", "grid"]
    assert "Constant" not in [n.op_type for n in model.graph.node]


def test_dynamic_batch(rng, tmp_path):
    x, grid = torch.randn(1, 2, 5, 6), grid_of(rng, (1, 3, 4, 2))
    model = export(Sample(mode="bicubic"), (x, grid), 16, ["x", "grid"],
                   dynamic_axes={"x": {0: "n"}, "grid": {0: "n"}, "y": {0: "n"}})
    x3, grid3 = torch.randn(3, 2, 5, 6), grid_of(rng, (3, 3, 4, 2))
    out = run_in_process(model, tmp_path, {"x": x3, "grid": grid3})["y"]
    np.testing.assert_array_equal(out, Sample(mode="bicubic")(x3, grid3).numpy())


def test_upgrade_rewrites_what_changed_after_opset_17(rng):
    class Rest(torch.nn.Module):
        def forward(self, x, grid):
            y = gt.grid_sample(x, grid)
            a, b = torch.split(y, 2, dim=1)
            return a.amax(dim=(2, 3)), b.mean(dim=2), y.sum(dim=1)

    x, grid = torch.randn(1, 4, 5, 6), grid_of(rng, (1, 3, 4, 2))
    m17 = export(Rest(), (x, grid), 17, ["x", "grid"], outputs=["a", "b", "s"])
    m20 = gt.upgrade_onnx(m17, 20, check=False)
    nodes = {n.op_type: n for n in m20.graph.node}
    assert len(nodes["Split"].input) == 2 and "num_outputs" not in attrs(nodes["Split"])  # torch gives `split`
    for op in ("ReduceMax", "ReduceMean"):
        n = nodes[op]
        assert "axes" not in attrs(n) and len(n.input) == 2, op
        (const,) = [c for c in m20.graph.node if c.output and c.output[0] == n.input[1]]
        assert const.op_type == "Constant"
    assert len(nodes["ReduceSum"].input) == 2  # an input since opset 13: unchanged
    assert attrs(nodes["GridSample"])["mode"] == "linear"
    # the same at 18 and 19, where GridSample keeps its opset-16 names
    m18 = gt.upgrade_onnx(m17, 18, check=False)
    assert len({n.op_type: n for n in m18.graph.node}["ReduceMean"].input) == 2
    assert attrs({n.op_type: n for n in m18.graph.node}["GridSample"])["mode"] == "bilinear"

    # Split without its `split` input (torch always gives one) gets num_outputs at 18
    h = onnx.helper
    split = h.make_node("Split", ["x"], ["p", "q", "r"], axis=0)
    m = h.make_model(h.make_graph([split], "g", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [6])],
                                  [h.make_tensor_value_info(v, onnx.TensorProto.FLOAT, [2]) for v in "pqr"]),
                     opset_imports=[h.make_opsetid("", 17)])
    assert attrs(gt.upgrade_onnx(m, 18, check=False).graph.node[0]) == {"axis": 0, "num_outputs": 3}
    assert attrs(gt.upgrade_onnx(m, 17).graph.node[0]) == {"axis": 0}
    # DFT changed at 20 (axis became an input) and is not rewritten
    dft = h.make_model(h.make_graph([h.make_node("DFT", ["x"], ["y"], name="f")], "g",
                                    [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 8, 1])],
                                    [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 8, 2])]),
                       opset_imports=[h.make_opsetid("", 17)])
    with pytest.raises(ValueError, match=r"node 'f' \(DFT\): DFT changed at opset 20"):
        gt.upgrade_onnx(dft, 20)
    assert gt.upgrade_onnx(dft, 19).graph.node[0].op_type == "DFT"


@pytest.mark.parametrize("opset", [16, 20])
def test_grid_sample_extensions_export_to_the_custom_node(rng, tmp_path, opset):
    """grid_units, grid_kind and the wrap/constant/fill paddings have no ONNX form: they
    export as ai.gridops::GridSample (kept by upgrade_onnx), which the gridops runner runs
    with the module's bits."""
    x = torch.from_numpy(rng.standard_normal((2, 3, 6, 7)).astype(np.float32))
    flow = torch.from_numpy(rng.uniform(-2, 2, (2, 5, 4, 2)).astype(np.float32))
    for kw in (dict(grid_units="pixels", grid_kind="displacement", padding_mode="fill", fill_value=-1.0,
                    align_corners=True),
               dict(grid_kind="displacement", padding_mode="wrap", mode="bicubic"),
               dict(grid_units="pixels", padding_mode="constant", fill_value=0.5, mode="nearest",
                    layout="channels_first")):
        module = Sample(**kw)
        g = flow if kw.get("grid_kind") == "displacement" else flow + 3.0
        if kw.get("grid_units") != "pixels":
            g = g * 0.1
        model = export(module, (x, g), opset, ["x", "grid"])
        assert op_types(model) == [("ai.gridops", "GridSample")], kw
        a = attrs(model.graph.node[0])
        for k in ("grid_units", "grid_kind", "padding_mode"):
            if k in kw:
                assert a[k] == kw[k], (k, a)
        if "fill_value" in kw:
            assert a["fill_value"] == kw["fill_value"]
        out = run_in_process(model, tmp_path, {"x": x, "grid": g})["y"]
        np.testing.assert_array_equal(out, module(x, g).numpy())


def test_the_runner_checks_the_custom_nodes_attributes(tmp_path):
    def model_with(**attrs_):
        node = onnx.helper.make_node("GridSample", ["x", "grid"], ["y"], domain="ai.gridops", **attrs_)
        x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 1, 2, 2])
        g = onnx.helper.make_tensor_value_info("grid", onnx.TensorProto.FLOAT, [1, 1, 1, 2])
        y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
        graph = onnx.helper.make_graph([node], "g", [x, g], [y])
        m = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                         onnx.helper.make_opsetid("ai.gridops", 1)])
        path = tmp_path / "m.onnx"
        onnx.save(m, str(path))
        return go.Model(path)

    with pytest.raises(Exception, match="grid_units must be normalized or pixels, got 'pixel'"):
        model_with(grid_units="pixel").check_supported()
    with pytest.raises(Exception, match="fill_value is used only by padding_mode constant and fill"):
        model_with(fill_value=1.0).check_supported()
    with pytest.raises(Exception, match="attribute 'antialias'"):
        model_with(antialias=1).check_supported()
    with pytest.raises(Exception, match="layout must be channels_first or channels_last, got 'nchw'"):
        model_with(layout="nchw").check_supported()
    m = model_with(grid_units="pixels", padding_mode="fill", fill_value=7.0)
    m.check_supported()
    y = m.run({"x": np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2),
               "grid": np.array([[[[1.0, 0.0]]]], np.float32)})["y"]
    assert y.tolist() == [[[[1.0]]]]


def test_export_errors(rng, tmp_path):
    x, grid = torch.randn(1, 2, 5, 6), grid_of(rng, (1, 3, 4, 2))
    with pytest.raises(ValueError, match="opset must be 16 to 20"):
        gt.export_onnx(Sample(), (x, grid), io.BytesIO(), opset=15)
    with pytest.raises(ValueError, match="opset must be 16 to 20"):
        gt.export_onnx(Sample(), (x, grid), io.BytesIO(), opset=21)
    with pytest.raises(TypeError, match="opset="):
        gt.export_onnx(Sample(), (x, grid), io.BytesIO(), opset_version=17)
    m17 = export(Sample(), (x, grid), 17, ["x", "grid"])
    with pytest.raises(ValueError, match="upgrades an opset 16 or 17 model to a later opset, got a model at opset 17 and opset=16"):
        gt.upgrade_onnx(m17, 16)
    m14 = onnx.helper.make_model(onnx.helper.make_graph([], "g", [], []),
                                 opset_imports=[onnx.helper.make_opsetid("", 14)])
    with pytest.raises(ValueError, match="got a model at opset 14"):
        gt.upgrade_onnx(m14, 20)
    # a path and bytes work as the model too
    path = tmp_path / "m.onnx"
    onnx.save(m17, str(path))
    assert op_types(gt.upgrade_onnx(str(path), 20)) == op_types(gt.upgrade_onnx(m17.SerializeToString(), 20))


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's own, about its Slice and prim::Constant
def test_torch_pad_and_interpolate_export_to_pad_and_resize(rng, tmp_path):
    # gridops.torch has no pad or resize of its own; torch's F.pad and F.interpolate export to
    # standard Pad and Resize, next to the shape arithmetic that torch emits for their inputs
    # (ConstantOfShape, Concat, Slice, ...), which the gridops runner does not run.
    class Pre(torch.nn.Module):
        def forward(self, x, grid):
            y = F.pad(x, (1, 2, 3, 0), mode="reflect")
            y = F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
            return gt.grid_sample(y, grid, padding_mode="border")

    x, grid = torch.randn(1, 2, 5, 6), grid_of(rng, (1, 3, 4, 2))
    model = export(Pre(), (x, grid), 17, ["x", "grid"])
    ops = [n.op_type for n in model.graph.node]
    assert {"Pad", "Resize", "GridSample"} <= set(ops) and ops[-1] == "GridSample"
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    with pytest.raises(NotImplementedError, match="is not supported"):
        go.Model(path).check_supported()


@pytest.mark.skipif(gridops_command() is None, reason="the gridops command was not found (set GRIDOPS_CLI or "
                                                     "GRIDOPS_BUILD_DIR)")
@pytest.mark.parametrize("opset", [16, 20])
def test_the_gridops_command_runs_the_export(rng, tmp_path, opset):
    x = torch.from_numpy(rng.standard_normal((2, 3, 8, 9)).astype(np.float32))
    theta = torch.from_numpy((np.eye(2, 3) + rng.uniform(-0.3, 0.3, (2, 2, 3))).astype(np.float32))
    if opset == 16:
        module, name = Sample(mode="bicubic", padding_mode="reflection", align_corners=True), "grid"
        second = grid_of(rng, (2, 5, 4, 2))
    else:
        module, name, second = SpatialTransformer((2, 3, 5, 4), "bicubic", "reflection", True), "theta", theta
    path = tmp_path / "model.onnx"
    gt.export_onnx(module, (x, second), str(path), opset=opset, input_names=["x", name], output_names=["y"])
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / f"{name}.npy", second.numpy())
    r = subprocess.run([gridops_command(), "run", str(path), "--input", f"x={tmp_path / 'x.npy'}",
                        "--input", f"{name}={tmp_path / (name + '.npy')}", "--output-dir", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), module(x, second).numpy())
