#pragma once
// For the parsers of core only: reading model fields from a JSON object and checking the shape.
#include "core/json_reader.h"
#include "core/model.h"

namespace core {

ModelSpec read_model_fields(JsonObjectReader& reader, const ModelSpec& base);
void validate_model_shape(const ModelSpec& model, const std::string& path);

}  // namespace core
