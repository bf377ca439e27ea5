"""ONNX export of gridops.torch's multi-scale deformable attention (docs/onnx.md, "The custom
domain ai.gridops"): torch.onnx.export emits one ai.gridops::MsDeformAttn node (the level
lists as int64 Constants), onnx.checker accepts the model, the gridops runner gives the
module's output bit for bit, and malformed nodes are errors that name the node."""

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx.checker", reason="the onnx Python package (python3-onnx) is not installed")
import onnx  # noqa: E402
import onnx.helper as oh  # noqa: E402
import onnx.numpy_helper  # noqa: E402

import gridops.torch as gt  # noqa: E402

go = pytest.importorskip("gridops.onnx", reason="gridops was built without its ONNX front end")

SHAPES = [(6, 7), (3, 4), (0, 5), (2, 2)]  # an empty level too
STARTS = [0, 42, 54, 54]


def problem(seed, dtype=torch.float32, n=2, m=3, d=4, lq=5, p=2):
    gen = torch.Generator().manual_seed(seed)
    s = sum(h * w for h, w in SHAPES) + 1
    value = torch.randn(n, s, m, d, dtype=dtype, generator=gen)
    loc = torch.rand(n, lq, m, len(SHAPES), p, 2, dtype=dtype, generator=gen) * 1.4 - 0.2
    att = torch.rand(n, lq, m, len(SHAPES), p, dtype=dtype, generator=gen)
    return value, loc, att


class Core(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = gt.MsDeformAttn()

    def forward(self, value, loc, att):
        return self.attn(value, SHAPES, STARTS, loc, att)


def export(module, args, names, opset=17):
    f = io.BytesIO()
    torch.onnx.export(module, args, f, opset_version=opset, input_names=names, output_names=["y"])
    return onnx.load_from_string(f.getvalue())


def run(model, tmp_path, feeds):
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    m = go.Model(path)
    m.check_supported()
    return m.run({k: v.numpy() if hasattr(v, "numpy") else v for k, v in feeds.items()})


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_core_exports_to_one_custom_node_and_runs_bit_for_bit(tmp_path, dtype):
    value, loc, att = problem(1, dtype)
    model = export(Core(), (value, loc, att), ["value", "loc", "att"])
    onnx.checker.check_model(model)
    nodes = [(n.domain, n.op_type) for n in model.graph.node]
    assert ("ai.gridops", "MsDeformAttn") in nodes
    assert all(op in ("Constant", "MsDeformAttn") for _, op in nodes), nodes
    consts = [onnx.numpy_helper.to_array(n.attribute[0].t) for n in model.graph.node
              if n.op_type == "Constant"]
    assert any(c.shape == (4, 2) and c.tolist() == [list(s) for s in SHAPES] for c in consts)
    assert any(c.tolist() == STARTS for c in consts)
    y = run(model, tmp_path, {"value": value, "loc": loc, "att": att})["y"]
    np.testing.assert_array_equal(y, gt.ms_deform_attn(value, SHAPES, STARTS, loc, att).numpy())


def test_export_onnx_at_opset_20_keeps_the_custom_node(tmp_path):
    value, loc, att = problem(3)
    f = io.BytesIO()
    gt.export_onnx(Core(), (value, loc, att), f, opset=20, input_names=["value", "loc", "att"],
                   output_names=["y"])
    model = onnx.load_from_string(f.getvalue())
    assert ("ai.gridops", "MsDeformAttn") in [(n.domain, n.op_type) for n in model.graph.node]
    assert {(o.domain, o.version) for o in model.opset_import} >= {("", 20), ("ai.gridops", 1)}
    y = run(model, tmp_path, {"value": value, "loc": loc, "att": att})["y"]
    np.testing.assert_array_equal(y, gt.ms_deform_attn(value, SHAPES, STARTS, loc, att).numpy())


def test_msdeformattn_with_projections_exports_the_node():
    torch.manual_seed(0)
    m = gt.MSDeformAttn(d_model=24, n_levels=4, n_heads=3, n_points=2).eval()
    shapes = torch.tensor(SHAPES)
    starts = torch.tensor(STARTS)
    q = torch.randn(1, 6, 24)
    ref = torch.rand(1, 6, 4, 2)
    x = torch.randn(1, 58, 24)
    f = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(m, (q, ref, x, shapes, starts), f, opset_version=17,
                          input_names=["query", "reference_points", "input_flatten"],
                          output_names=["y"])
    model = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(model)
    ops = [(n.domain, n.op_type) for n in model.graph.node]
    assert ops.count(("ai.gridops", "MsDeformAttn")) == 1
    assert ("", "Softmax") in ops and (("", "MatMul") in ops or ("", "Gemm") in ops), ops


def custom_model(node, inputs, dtype=onnx.TensorProto.FLOAT):
    graph = oh.make_graph([node], "g", inputs, [oh.make_tensor_value_info("y", dtype, None)])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid("ai.gridops", 1)])


def test_runner_errors_name_the_node(tmp_path):
    f = onnx.TensorProto.FLOAT
    ins = [oh.make_tensor_value_info(n, t, None) for n, t in
           (("value", f), ("shapes", onnx.TensorProto.INT64), ("starts", onnx.TensorProto.INT64),
            ("loc", f), ("att", f))]
    value, loc, att = problem(2)
    feeds = {"value": value, "shapes": np.array(SHAPES, np.int64),
             "starts": np.array(STARTS, np.int64), "loc": loc, "att": att}
    good = oh.make_node("MsDeformAttn", ["value", "shapes", "starts", "loc", "att"], ["y"],
                        domain="ai.gridops", name="attn")
    y = run(custom_model(good, ins), tmp_path, feeds)["y"]
    np.testing.assert_array_equal(y, gt.ms_deform_attn(value, SHAPES, STARTS, loc, att).numpy())
    bad_attr = oh.make_node("MsDeformAttn", ["value", "shapes", "starts", "loc", "att"], ["y"],
                            domain="ai.gridops", name="attn", im2col_step=64)
    with pytest.raises(Exception, match="attn.*unsupported attribute 'im2col_step'"):
        run(custom_model(bad_attr, ins), tmp_path, feeds)
    flat = dict(feeds, shapes=np.array(SHAPES, np.int64).reshape(-1))
    with pytest.raises(Exception, match=r"attn.*'spatial_shapes' must be \(L, 2\)"):
        run(custom_model(good, ins), tmp_path, flat)
    short = dict(feeds, starts=np.array(STARTS[:2], np.int64))
    with pytest.raises(Exception, match="attn.*level_start_index"):
        run(custom_model(good, ins), tmp_path, short)
    with pytest.raises(Exception, match=r"attn.*value must be \(N, S, M, D\)"):
        run(custom_model(good, ins), tmp_path, dict(feeds, value=value[0]))
    with pytest.raises(Exception, match=r"attn.*sampling_locations must be \(N, Lq, M, L, P, 2\)"):
        run(custom_model(good, ins), tmp_path, dict(feeds, loc=loc[0]))
    four = oh.make_node("MsDeformAttn", ["value", "shapes", "starts", "loc"], ["y"],
                        domain="ai.gridops", name="attn")
    with pytest.raises(Exception, match="attn.*expected 5 inputs"):
        run(custom_model(four, ins[:4]), tmp_path, feeds)


def test_runner_runs_the_custom_affine_grid(tmp_path):
    theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]])
    node = oh.make_node("AffineGrid", ["theta"], ["y"], domain="ai.gridops", name="ag",
                        size=[1, 3, 5, 7], align_corners=1)
    model = custom_model(node, [oh.make_tensor_value_info("theta", onnx.TensorProto.FLOAT, None)])
    y = run(model, tmp_path, {"theta": theta})["y"]
    np.testing.assert_array_equal(y, gt.affine_grid(theta, (1, 3, 5, 7), align_corners=True).numpy())
    no_size = oh.make_node("AffineGrid", ["theta"], ["y"], domain="ai.gridops", name="ag")
    with pytest.raises(Exception, match="ag.*'size' is required"):
        run(custom_model(no_size, [oh.make_tensor_value_info("theta", onnx.TensorProto.FLOAT, None)]),
            tmp_path, {"theta": theta})
