// Internal: the ONNX schema type constraints of every supported operator version (inputs,
// outputs, attributes), checked before a graph runs.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "gridops/dtype.h"
#include "gridops/status.h"

namespace gridops::onnx::detail {

/// Checks one node's attributes against its schema at `version` (the op's since-version in
/// effect): every attribute must exist at that version and have the schema's type.
/// `label` names the node. Nodes of ops without a schema here pass.
Status check_schema_attributes(const ::onnx::NodeProto& n, int64_t version, const std::string& label);

/// Checks the element types of one node's inputs and outputs against its schema at
/// `version`: each must be one of the types its constraint allows, and the inputs and
/// outputs sharing a type variable must have one type. `types` maps value names to element
/// types where known (unknown names are skipped); the types of the node's outputs are
/// added to it (from the type variables, or the Constant's value). The error names the
/// node, the input or output, the type found and the types allowed.
Status check_schema_types(const ::onnx::NodeProto& n, int64_t version, const std::string& label,
                          std::map<std::string, DType>* types);

}  // namespace gridops::onnx::detail
