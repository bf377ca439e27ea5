#!/usr/bin/env python3
"""Writes docs/api/cpp.md and docs/api/python.md, the API reference.

cpp.md is read from the public headers (include/gridops/**.h and onnx/include/gridops/onnx/*.h):
every documented declaration with the first sentence of its `///` comment, the members of
each public struct and class, and each header's opening comment. python.md takes every public
function and class of the gridops package from its type stubs (python/gridops/*.pyi) and its
one-line description from SUMMARIES below.

    python3 scripts/gen_api_docs.py           # rewrite both files
    python3 scripts/gen_api_docs.py --check   # exit 1 (naming the file) when either is stale

python/tests/test_docs.py runs --check, so a header or stub changed without regenerating, or a
new Python function without a line in SUMMARIES, fails the tests. Standard library only.
"""
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------
# C++

CPP_HEADERS = ["include/gridops/gridops.h", "include/gridops/status.h", "include/gridops/dtype.h",
               "include/gridops/tensor.h", "include/gridops/convert.h", "include/gridops/parallel.h",
               "include/gridops/isa.h"]
CPP_GLOBS = ["include/gridops/ops/*.h", "onnx/include/gridops/onnx/*.h"]


def first_sentence(text):
    """The text up to the first '. ' (or ':' list) outside brackets, or all of it."""
    text = " ".join(text.split())
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            prev = text[max(0, i - 4):i]
            if prev.endswith(("e.g", "i.e", "etc", "vs")):
                continue
            return text[:i + 1]
    return text


def clean_decl(text):
    text = " ".join(text.split())
    text = re.sub(r"\s*;\s*$", "", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+\)", ")", text)
    text = re.sub(r"<\s+", "<", text)
    return text.replace("| ", "|").replace("|", "\\|")


def strip_initializers(decl):
    """A constructor's declaration without its member initializer list."""
    depth, opened = 0, False
    for j, ch in enumerate(decl):
        if ch == "(":
            depth, opened = depth + 1, True
        elif ch == ")":
            depth -= 1
            if opened and depth == 0:
                m = re.match(r"\s*(noexcept\s*)?:(?!:)", decl[j + 1:])
                if m:
                    return decl[:j + 1] + (" noexcept" if m.group(1) else "")
    return decl


class Item:
    def __init__(self, decl, doc, kind="decl"):
        self.decl, self.doc, self.kind, self.members = decl, doc, kind, []


def parse_header(path):
    lines = path.read_text().split("\n")
    # The opening comment (// lines before the first other line).
    intro = []
    for line in lines:
        s = line.strip()
        if s.startswith("///") or not s.startswith("//") or s == "//":
            break  # the first paragraph only
        intro.append(s[2:].strip())
    items = []
    scopes = []  # entries: [kind, access, item]
    doc = []
    i = 0

    def target():
        for sc in reversed(scopes):
            if sc[0] in ("class", "struct"):
                return sc[2].members
        return items

    def in_private():
        return any(sc[0] in ("class", "struct") and sc[1] == "private" for sc in scopes)

    while i < len(lines):
        raw = lines[i]
        s = raw.strip()
        i += 1
        if not s:
            doc = []
            continue
        if s.startswith("///"):
            doc.append(s[3:].lstrip("<").strip())
            continue
        if s.startswith("//"):
            doc = []
            continue
        if s.startswith("#"):
            m = re.match(r"#define\s+(\w+)(\([^)]*\))?", s)
            while raw.rstrip().endswith("\\") and i < len(lines):
                raw = lines[i]
                i += 1
            if m and doc and not in_private():
                target().append(Item(m.group(1) + (m.group(2) or ""), " ".join(doc), "macro"))
            doc = []
            continue
        m = re.match(r"^namespace\s*([\w:]*).*\{", s)
        if m:
            scopes.append(["namespace", m.group(1), None])
            continue
        if s.startswith("}"):
            if scopes:
                scopes.pop()
            doc = []
            continue
        if s in ("public:", "private:", "protected:"):
            for sc in reversed(scopes):
                if sc[0] in ("class", "struct"):
                    sc[1] = s[:-1]
                    break
            doc = []
            continue
        # A declaration: gather lines up to ';' or '{' at bracket depth 0.
        text, depth = "", 0
        cur = raw
        while True:
            body_at = -1
            for j, ch in enumerate(cur):
                pair = cur[max(0, j - 1):j + 2]
                if ch == "<" and ("<<" in pair or "<=" in pair):
                    continue  # a shift or comparison, not a template bracket
                if ch == ">" and (">>" in pair and "<" not in text + cur[:j] or "->" in pair or ">=" in pair):
                    continue
                if ch in "(<[":
                    depth += 1
                elif ch in ")>]":
                    depth -= 1
                elif ch == "{" and depth <= 0 and re.search(r"[^=!<>]=[^=]", text + cur[:j]):
                    depth += 1  # a brace initializer: int64_t{4}
                elif ch == "}" and depth > 0:
                    depth -= 1
                elif ch in ";{" and depth <= 0:
                    body_at = j
                    break
            if body_at >= 0:
                text += " " + cur[:body_at + 1]
                rest = cur[body_at + 1:]
                break
            text += " " + cur.split("//")[0]
            if i >= len(lines):
                rest = ""
                break
            cur = lines[i]
            i += 1
        text = text.strip()
        # Trailing ///< comments on the same line.
        m = re.search(r"///<?\s*(.*)$", rest)
        tail_doc = m.group(1) if m else ""
        this_doc = " ".join(doc) or tail_doc
        doc = []
        if text.endswith("{"):
            head = text[:-1].strip()
            km = re.match(r"^(template\s*<.*>\s*)?(enum class|enum|struct|class)\s+(\[\[\w+\]\]\s*)?(\w+)", head)
            if km:
                kind = km.group(2)
                name_decl = clean_decl(head)
                if kind.startswith("enum"):
                    # Collect the enumerators, skip the body.
                    body, d = rest, 1 + rest.count("{") - rest.count("}")
                    while d > 0 and i < len(lines):
                        body += "\n" + lines[i]
                        d += lines[i].count("{") - lines[i].count("}")
                        i += 1
                    body = re.sub(r"//.*", "", body)
                    names = re.findall(r"\b(k[A-Z0-9]\w*)\b", body)
                    if not in_private():
                        target().append(Item(f"{name_decl} {{ {', '.join(names)} }}", this_doc, "enum"))
                    continue
                it = Item(name_decl, this_doc, kind)
                if not in_private():
                    target().append(it)
                scopes.append([kind, "private" if kind == "class" else "public", it])
                if rest.strip().startswith("}"):
                    scopes.pop()
                continue
            # A function with a body (or an operator/constructor): skip the body.
            d = 1 + rest.count("{") - rest.count("}")
            while d > 0 and i < len(lines):
                d += lines[i].count("{") - lines[i].count("}")
                i += 1
            decl = head
        else:
            decl = text
        decl = clean_decl(decl)
        if not decl or in_private():
            continue
        if decl.startswith(("friend ", "using namespace")) or re.match(r"^[A-Z_]+\(", decl):
            continue
        if re.match(r"^(class|struct)\s+\w+$", decl) and not this_doc:
            continue  # a forward declaration
        if any(sc[0] == "namespace" and sc[1] == "detail" for sc in scopes):
            continue
        target().append(Item(strip_initializers(decl), this_doc))
    return " ".join(intro), items


def render_items(items, indent=""):
    out = []
    for it in items:
        line = f"{indent}- `{it.decl}`"
        if it.doc:
            line += f": {first_sentence(it.doc)}"
        out.append(line)
        if it.members:
            out.extend(render_items(it.members, indent + "  "))
    return out


def gen_cpp():
    headers = [ROOT / h for h in CPP_HEADERS]
    for g in CPP_GLOBS:
        headers.extend(sorted(ROOT.glob(g)))
    out = ["# C++ API reference", "",
           "Generated by `scripts/gen_api_docs.py` from the public headers: every declaration with the",
           "first sentence of its `///` comment (the header has the rest), the members of each public",
           "struct and class. `python/tests/test_docs.py` fails when this file is not what the script",
           "writes from the headers, so a changed header needs `python3 scripts/gen_api_docs.py`.",
           "Operators' full contracts: [../ops/](../ops/grid_sample.md); examples: [../cpp.md](../cpp.md).",
           "`gridops/version.h` is generated by CMake from `cmake/version.h.in` (`GRIDOPS_VERSION_STRING`,",
           "`GRIDOPS_VERSION_MAJOR`, `_MINOR`, `_PATCH`).", "",
           "Everything is in namespace `gridops` (`gridops::convert` in convert.h, `gridops::onnx` in",
           "the `gridops::onnx` library's headers, linked with `gridops::onnx`).", ""]
    for h in headers:
        rel = h.relative_to(ROOT)
        inc = str(rel).split("include/", 1)[1]
        intro, items = parse_header(h)
        out += [f"## `<{inc}>`", "", f"[`{rel}`](../../{rel})" + (f": {intro}" if intro else ""), ""]
        out += render_items(items)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------------------
# Python

PY_MODULES = [("gridops", "python/gridops/__init__.pyi"), ("gridops.torch", "python/gridops/torch.pyi"),
              ("gridops.dask", "python/gridops/dask.pyi"), ("gridops.onnx", "python/gridops/onnx.pyi")]

SUMMARIES = {
    "gridops.__version__": "the package version (the CMake project's version).",
    "gridops.DTypeError": "raised for an unsupported or mismatched dtype; a subclass of both TypeError and ValueError.",
    "gridops.grid_sample": "GridSample: sample `input` at the normalized positions of `grid` (as `F.grid_sample`, any spatial rank, either layout; `full_size`/`origin` give an input window).",
    "gridops.remap": "`cv2.remap` in 2-D and 3-D: GridSample with pixel maps (one array or one map per axis), OpenCV's interpolation and border names.",
    "gridops.grid_sample_input_box": "the box of a full input that `grid_sample` with this grid reads, per spatial axis `(lo, hi)`.",
    "gridops.grid_sample_backward": "the gradients of `grid_sample` with respect to `input` and `grid` from `grad_output`; returns `(grad_input, grad_grid)`, either skippable.",
    "gridops.affine_grid": "AffineGrid: the sampling grid of a batch of affine matrices (as `F.affine_grid`, 2-D and 3-D; `window` a box of the grid).",
    "gridops.affine_grid_backward": "the gradient of `affine_grid` with respect to theta.",
    "gridops.affine_warp": "AffineGrid + GridSample fused, without a grid in memory (1-3 spatial axes; windows for chunked runs).",
    "gridops.affine_warp_input_box": "the box of the full input that an output box of `affine_warp` reads.",
    "gridops.resample": "Resample: up/down sampling by sizes or factors (oneDNN semantics; plain, channels-last and blocked layouts; `window` for chunked runs).",
    "gridops.resample_backward": "the exact adjoint of `resample`: `grad_output` back to the input's size.",
    "gridops.resample_input_box": "the input range per spatial axis that an output box of `resample` reads.",
    "gridops.resize": "ONNX Resize: nearest / linear / cubic on any axes, every coordinate transformation, antialias, crop-and-resize.",
    "gridops.resize_input_box": "the input box per axis that an output box of `resize` reads.",
    "gridops.gather": "Gather (as `np.take`): slices along `axis` at `indices` (int32/int64, negative allowed, every index checked first).",
    "gridops.pad": "Pad: constant, edge, reflect, symmetric or wrap; `pads` in ONNX form or NumPy's `pad_width`; negative pads crop.",
    "gridops.set_num_threads": "sets the number of threads gridops uses (process-wide).",
    "gridops.get_num_threads": "the number of threads gridops uses.",
    "gridops.num_threads": "a context manager: the calling thread's gridops calls in the block use n threads.",
    "gridops.set_max_isa": "caps the SIMD level gridops dispatches to (as `GRIDOPS_MAX_ISA`); set it before making plans.",
    "gridops.max_isa": "the ISA cap in force (`\"native\"` when none).",
    "gridops.effective_isa": "the best SIMD level of the CPU under the cap: what gridops dispatches to.",
    "gridops.isa_report": "a few lines for people: the CPU's features, the cap, the Highway targets compiled, usable and dispatched.",
    "gridops.GridSamplePlan": "a GridSample validated once for shapes and dtypes; call it with arrays.",
    "gridops.AffineGridPlan": "an AffineGrid validated once for theta's shape, the size and the dtype.",
    "gridops.GatherPlan": "a Gather validated once for shapes and dtypes.",
    "gridops.PadPlan": "a Pad validated once for the input shape, pads, dtype and mode.",
    "gridops.resize_backward": "the gradient of `resize` with respect to its input: the adjoint of the Resize with the same attributes (the extrapolation value has none).",
    "gridops.ResizePlan.backward": "the gradient with respect to the input, for a gradient of the planned output's shape.",
    "gridops.ResizePlan.backward_impl_name": "the implementation the plan chose for `backward` (`\"\"` for dtypes without one).",
    "gridops.ms_deform_attn": "multi-scale deformable attention (Deformable DETR's sampling core): bilinear samples of every level at the learned points, weighted, per head.",
    "gridops.ms_deform_attn_backward": "the gradients of `ms_deform_attn` for value, sampling_locations and attention_weights (deterministic).",
    "gridops.torch.ms_deform_attn": "`ms_deform_attn` with autograd.",
    "gridops.pad_backward": "the gradient of `pad` with respect to its input: the exact adjoint, summed in row-major output order (PyTorch's order).",
    "gridops.PadPlan.backward": "the gradient with respect to the input, for a gradient of the planned output's shape.",
    "gridops.PadPlan.backward_impl_name": "the implementation the plan chose for `backward` (`\"\"` for dtypes without one).",
    "gridops.ResizePlan": "a Resize with its tap tables built once for the input shape and dtype.",
    "gridops.ResamplePlan": "a Resample validated once for input and output sizes, dtype and layouts; forward and backward.",
    "*.__init__": "makes the plan (errors are raised here, not at the call).",
    "*.__call__": "runs the plan on arrays of the planned shapes and dtypes (`out=` an array to write into).",
    "*.output_shape": "the output's shape.",
    "*.input_shape": "the input's shape.",
    "*.impl_name": "the name of the implementation the plan chose (`\"ref\"`, `\"grid_sample.pairs\"`, ...).",
    "gridops.ResamplePlan.forward": "the forward, as calling the plan.",
    "gridops.ResamplePlan.backward": "the adjoint: `grad_output` of the output's shape back to the input's.",
    "gridops.torch.grid_sample": "`F.grid_sample` as an autograd function over gridops' forward and backward.",
    "gridops.torch.affine_grid": "`F.affine_grid` as an autograd function (derivatives of every order).",
    "gridops.torch.GridSample": "an `nn.Module` calling `gridops.torch.grid_sample` with fixed attributes.",
    "gridops.torch.GridSample.__init__": "keeps mode, padding_mode, align_corners, layout, grid_units, grid_kind and fill_value.",
    "gridops.torch.GridSample.forward": "`grid_sample(input, grid)` with the module's attributes.",
    "gridops.torch.GridSample.mode": "the interpolation mode.",
    "gridops.torch.GridSample.padding_mode": "the padding mode.",
    "gridops.torch.GridSample.align_corners": "align_corners (None: False).",
    "gridops.torch.GridSample.layout": "`\"channels_first\"` or `\"channels_last\"`.",
    "gridops.torch.GridSample.grid_units": "`\"normalized\"` or `\"pixels\"` (docs/ops/grid_sample.md, \"Grid conventions\").",
    "gridops.torch.GridSample.grid_kind": "`\"absolute\"` or `\"displacement\"`.",
    "gridops.torch.GridSample.fill_value": "the value of the `constant` and `fill` paddings.",
    "gridops.torch.AffineGrid": "an `nn.Module` calling `gridops.torch.affine_grid`.",
    "gridops.torch.AffineGrid.__init__": "keeps align_corners.",
    "gridops.torch.AffineGrid.forward": "`affine_grid(theta, size)` with the module's align_corners.",
    "gridops.torch.AffineGrid.align_corners": "align_corners (None: False).",
    "gridops.torch.MsDeformAttn": "an `nn.Module` without parameters calling `gridops.torch.ms_deform_attn`.",
    "gridops.torch.MsDeformAttn.forward": "`ms_deform_attn(value, spatial_shapes, level_start_index, sampling_locations, attention_weights)`.",
    "gridops.torch.MSDeformAttn": "Deformable DETR's multi-scale deformable attention module (its parameter names and initialization) on gridops' core.",
    "gridops.torch.MSDeformAttn.__init__": "the projection layers for d_model channels, n_levels levels, n_heads heads and n_points points.",
    "gridops.torch.MSDeformAttn.d_model": "channels of the query and value (a multiple of n_heads).",
    "gridops.torch.MSDeformAttn.n_levels": "feature levels L.",
    "gridops.torch.MSDeformAttn.n_heads": "attention heads M.",
    "gridops.torch.MSDeformAttn.n_points": "sampling points P per head and level.",
    "gridops.torch.MSDeformAttn.sampling_offsets": "`Linear(d_model, M L P 2)`: the points' offsets from the reference points.",
    "gridops.torch.MSDeformAttn.attention_weights": "`Linear(d_model, M L P)`: the points' weights before the softmax.",
    "gridops.torch.MSDeformAttn.value_proj": "`Linear(d_model, d_model)` on the flattened levels.",
    "gridops.torch.MSDeformAttn.output_proj": "`Linear(d_model, d_model)` on the attention's output.",
    "gridops.torch.MSDeformAttn.reset_parameters": "Deformable DETR's initialization of the four layers.",
    "gridops.torch.MSDeformAttn.forward": "`(query, reference_points, input_flatten, input_spatial_shapes, input_level_start_index, input_padding_mask=None)` -> (N, Lq, d_model).",
    "gridops.torch.ONNX_DOMAIN": "the custom ONNX domain of nodes that standard ONNX lacks (`\"ai.gridops\"`).",
    "gridops.torch.ONNX_DOMAIN_VERSION": "the version of that domain.",
    "gridops.torch.OnnxExportError": "raised when a module cannot be exported at the requested opset, naming the function and the reason.",
    "gridops.torch.export_onnx": "`torch.onnx.export` of a module using `gridops.torch`, to standard ONNX nodes where ONNX has them (up to opset 20).",
    "gridops.torch.upgrade_onnx": "raises an exported model's opset (e.g. to 20 for AffineGrid and GridSample-20).",
    "gridops.torch.enable": "makes gridops the kernel of PyTorch's own CPU operators (`F.grid_sample`, `F.interpolate`, `F.pad`, ...) where it was measured faster, or `ops=\"all\"`, `min_elements=0` (nests; docs/python.md, \"PyTorch drop-in\").",
    "gridops.torch.disable": "undoes one `enable()`; the last gives PyTorch's kernels back.",
    "gridops.torch.enabled": "`with gridops.torch.enabled():` enable() for the block.",
    "gridops.torch.is_enabled": "whether gridops' kernels are registered now.",
    "gridops.torch.covered_operators": "the `aten::` operators `enable(ops)` registers.",
    "gridops.torch.fallback_counts": "the calls handed to PyTorch's kernel since the last reset, by (operator, reason).",
    "gridops.torch.served_counts": "the calls gridops computed since the last reset, by operator.",
    "gridops.torch.reset_fallback_counts": "zeroes both counts.",
    "gridops.dask.resample": "`gridops.resample` on a Dask array, bit-identical to in memory for any chunking.",
    "gridops.dask.resize": "`gridops.resize` on a Dask array.",
    "gridops.dask.grid_sample": "`gridops.grid_sample` on Dask arrays; output chunks are the grid's chunks.",
    "gridops.dask.affine_warp": "`gridops.affine_warp` on a Dask array.",
    "gridops.dask.pad": "`gridops.pad` on a Dask array.",
    "gridops.dask.gather": "`gridops.gather` on a Dask array (NumPy or Dask indices).",
    "gridops.dask.affine_grid_points": "any part of `gridops.affine_grid`'s grid, the same bits (a NumPy helper).",
    "gridops.dask.worker_config": "a Dask configuration for workers that keeps freed outputs for reuse.",
    "gridops.onnx.ValueInfo": "a graph input or output.",
    "gridops.onnx.ValueInfo.name": "its name.",
    "gridops.onnx.ValueInfo.dtype": "its element type name, or None when the model does not say.",
    "gridops.onnx.ValueInfo.shape": "its shape, None for a symbolic or unknown dimension (or an unknown rank).",
    "gridops.onnx.ValueInfo.dim_names": "the symbolic dimension names.",
    "gridops.onnx.Model": "an ONNX model loaded for the gridops runner.",
    "gridops.onnx.Model.__init__": "loads and checks the model file.",
    "gridops.onnx.Model.inputs": "the graph inputs.",
    "gridops.onnx.Model.outputs": "the graph outputs.",
    "gridops.onnx.Model.opset": "the default-domain opset.",
    "gridops.onnx.Model.check_supported": "raises when the model uses a node or type the runner does not support.",
    "gridops.onnx.Model.run": "runs the model on `{name: array}`; returns `{name: array}`.",
    "gridops.onnx.CaseResult": "the outcome of one ONNX backend test directory.",
    "gridops.onnx.CaseResult.name": "the case's name.",
    "gridops.onnx.CaseResult.path": "its directory.",
    "gridops.onnx.CaseResult.status": "`\"pass\"`, `\"fail\"` or `\"skip\"`.",
    "gridops.onnx.CaseResult.detail": "why it failed or was skipped.",
    "gridops.onnx.conformance": "runs the ONNX backend test cases found under each directory.",
    "gridops.onnx.find_test_dirs": "every directory under root (root included) that holds a model.onnx, sorted.",
    "gridops.onnx.read_tensor": "reads a serialized TensorProto (.pb) or a .npy file into a NumPy array.",
}


def py_signature(fn, cls=None):
    a = fn.args
    parts = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for arg, d in zip(pos, defaults):
        if arg.arg == "self":
            continue
        parts.append(arg.arg + ("=…" if d is not None else ""))
    if a.vararg:
        parts.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        parts.append("*")
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        parts.append(arg.arg + ("=…" if d is not None else ""))
    if a.kwarg:
        parts.append("**" + a.kwarg.arg)
    return "(" + ", ".join(parts) + ")"


def summary(qual, missing):
    key = qual
    if key not in SUMMARIES:
        key = "*." + qual.rsplit(".", 1)[1]
    if key not in SUMMARIES:
        missing.append(qual)
        return ""
    return SUMMARIES[key]


def gen_python():
    out = ["# Python API reference", "",
           "Generated by `scripts/gen_api_docs.py` from the type stubs (`python/gridops/*.pyi`) and the",
           "one-line descriptions kept in that script; `python/tests/test_docs.py` fails when a stub",
           "changes without regenerating this file, or when a public name has no description. `=…`",
           "marks a parameter with a default; the defaults, the types and every rule are in",
           "`help(gridops.<name>)` and [../python.md](../python.md). A NumPy input gives a NumPy",
           "result and a torch tensor a torch tensor; `out=` writes into a given array.", ""]
    missing = []
    for mod, path in PY_MODULES:
        tree = ast.parse((ROOT / path).read_text())
        out += [f"## `{mod}`", ""]
        seen = set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                if node.name in seen:
                    continue
                seen.add(node.name)
                # The last overload is the general one.
                last = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == node.name][-1]
                q = f"{mod}.{node.name}"
                out.append(f"- `{node.name}{py_signature(last)}`: {summary(q, missing)}")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and (not node.target.id.startswith("_") or node.target.id.endswith("__")):
                q = f"{mod}.{node.target.id}"
                out.append(f"- `{node.target.id}`: {summary(q, missing)}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                q = f"{mod}.{node.name}"
                bases = ", ".join(ast.unparse(b) for b in node.bases)
                init = [b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"]
                sig = py_signature(init[0]) if init else (f"({bases})" if bases else "")
                out.append(f"- **`{node.name}{sig}`**: {summary(q, missing)}")
                for b in node.body:
                    if isinstance(b, ast.FunctionDef) and b.name not in ("__init__",) \
                            and (not b.name.startswith("_") or b.name == "__call__"):
                        is_prop = any(isinstance(d, ast.Name) and d.id == "property" for d in b.decorator_list)
                        shown = b.name if is_prop else f"{b.name}{py_signature(b)}"
                        if b.name == "__call__":
                            shown = f"plan{py_signature(b)}"
                        out.append(f"  - `{shown}`: {summary(q + '.' + b.name, missing)}")
                    elif isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                        out.append(f"  - `{b.target.id}`: {summary(q + '.' + b.target.id, missing)}")
        out.append("")
    if missing:
        sys.exit("gen_api_docs.py: no description in SUMMARIES for: " + ", ".join(missing))
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for rel, text in (("docs/api/cpp.md", gen_cpp()), ("docs/api/python.md", gen_python())):
        path = ROOT / rel
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit("out of date (run python3 scripts/gen_api_docs.py): " + ", ".join(stale))


if __name__ == "__main__":
    main()
