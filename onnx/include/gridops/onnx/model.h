// ONNX models: load a ModelProto, describe it, check that gridops can run every node, run it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::onnx {

/// A graph input or output: name, element type and dims (-1 where the model leaves a
/// dimension symbolic or unknown; `rank_known` false when the model gives no shape).
struct ValueInfo {
  std::string name;
  bool type_known = false;
  DType dtype = DType::kFloat32;
  bool rank_known = false;
  Dims dims;
  std::vector<std::string> dim_names;  ///< the symbolic names, "" where a number is given
  /// "float32[2, 3, H, W]" style.
  std::string to_string() const;
};

/// One node of the graph, as stored.
struct NodeInfo {
  std::string name;
  std::string op_type;
  std::string domain;
  std::vector<std::string> inputs;   ///< "" for an omitted optional input
  std::vector<std::string> outputs;
  std::string attributes;            ///< "mode=linear, align_corners=0"
};

/// Options for Model::run.
struct RunOptions {
  /// The largest byte size of one tensor the run may allocate (a node output, a graph
  /// output copy); a larger one is kOutOfMemory naming the node and the size. 0: no cap
  /// (allocation failures are still kOutOfMemory, never an abort).
  int64_t max_tensor_bytes = 0;
};

/// A loaded model. Copies share the parsed graph.
class Model {
 public:
  /// Parses a serialized ModelProto. `what` names the source in messages.
  static StatusOr<Model> parse(std::string_view bytes, std::string_view what);
  /// Reads a .onnx file.
  static StatusOr<Model> load(const std::string& path);

  /// The graph inputs that are not initializers, in order.
  const std::vector<ValueInfo>& inputs() const;
  /// The graph inputs that have an initializer (a default the caller may override), in order.
  const std::vector<ValueInfo>& inputs_with_initializers() const;
  /// The graph outputs, in order.
  const std::vector<ValueInfo>& outputs() const;
  /// The nodes in stored order.
  const std::vector<NodeInfo>& nodes() const;
  /// The opset imported for a domain ("" and "ai.onnx" are the default domain), or -1.
  int64_t opset(std::string_view domain = "") const;
  /// Every (domain, version) pair imported.
  std::vector<std::pair<std::string, int64_t>> opsets() const;

  /// Checks, without running, that every node is one gridops runs (op, domain, opset,
  /// attributes) and that the graph is well formed (every input defined, no cycles).
  /// The error names the node, its op and what is unsupported.
  Status check_supported() const;

  /// Runs the graph. `inputs` maps graph input names to tensors; each must match the
  /// model's declared element type and known dims. Returns every graph output by name.
  ///
  /// Memory: each value is freed after its last use, Identity shares its input, and graph
  /// outputs are moved out (copied only when one tensor is also a graph input, an
  /// initializer or a second graph output). Peak = the inputs and initializers + the live
  /// computed values (those a later node or the result still needs) + the running node's
  /// outputs and kernel scratch. An allocation failure anywhere is kOutOfMemory naming
  /// the node (or output) and the size; nothing aborts.
  StatusOr<std::map<std::string, Tensor>> run(const std::map<std::string, Tensor>& inputs,
                                              const RunOptions& options = {}) const;

  struct Impl;

 private:
  Status check_types(std::map<std::string, DType> types) const;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace gridops::onnx
