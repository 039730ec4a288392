#include "protocol/mcp/output_schema.hpp"

#include <fmt/format.h>

namespace ptc::mcp {

namespace {

using K = HostValue::Kind;
using Kind = SigType::Kind;

struct Converter {
  std::string error;

  bool fail(const std::string& path, std::string message) {
    error = fmt::format("{}: {}", path, message);
    return false;
  }

  // The "type" of a schema, and whether null is allowed too ([T, "null"]).
  bool type_of(const HostValue& schema, const std::string& path, std::string* type,
               bool* nullable) {
    *nullable = false;
    const HostValue* t = schema.get("type");
    if (!t) {
      // No type: an object schema by its properties, else anything.
      *type = schema.get("properties") ? "object" : "";
      return true;
    }
    if (t->kind() == K::String) {
      *type = t->text();
      return true;
    }
    if (t->kind() == K::Vector) {
      std::string found;
      for (const HostValue& x : t->items()) {
        if (x.kind() != K::String) return fail(path + ".type", "expected type names");
        if (x.text() == "null") {
          *nullable = true;
        } else if (found.empty()) {
          found = x.text();
        } else {
          return fail(path + ".type", "only one type besides \"null\" is supported (no unions)");
        }
      }
      *type = found;
      return true;
    }
    return fail(path + ".type", "expected a type name or a list of them");
  }

  SigTypePtr convert(const HostValue& schema, const std::string& path, size_t depth) {
    if (depth > kMaxSignatureDepth) {
      fail(path, fmt::format("nested deeper than {} levels", kMaxSignatureDepth));
      return nullptr;
    }
    if (schema.kind() != K::Map) {
      fail(path, "expected a schema object");
      return nullptr;
    }
    std::string type;
    bool nullable = false;
    if (!type_of(schema, path, &type, &nullable)) return nullptr;
    if (type.empty()) return SigType::primitive(Kind::Any, true);
    if (type == "string") {
      const HostValue* format = schema.get("format");
      bool datetime = format && format->kind() == K::String && format->text() == "date-time";
      return SigType::primitive(datetime ? Kind::DateTime : Kind::String, nullable);
    }
    if (type == "integer") return SigType::primitive(Kind::Int, nullable);
    if (type == "number") return SigType::primitive(Kind::Float, nullable);
    if (type == "boolean") return SigType::primitive(Kind::Bool, nullable);
    if (type == "array") {
      const HostValue* items = schema.get("items");
      SigTypePtr element = SigType::primitive(Kind::Any, true);
      if (items) {
        element = convert(*items, path + ".items", depth + 1);
        if (!element) return nullptr;
      }
      return SigType::list_of(element, nullable);
    }
    if (type == "object") {
      const HostValue* props = schema.get("properties");
      if (!props) return SigType::primitive(Kind::Map, nullable);
      if (props->kind() != K::Map) {
        fail(path + ".properties", "expected an object of property schemas");
        return nullptr;
      }
      std::vector<std::string> required;
      if (const HostValue* req = schema.get("required")) {
        if (req->kind() != K::Vector) {
          fail(path + ".required", "expected a list of property names");
          return nullptr;
        }
        for (const HostValue& r : req->items()) {
          if (r.kind() != K::String) {
            fail(path + ".required", "expected property names (strings)");
            return nullptr;
          }
          required.push_back(r.text());
        }
      }
      SigFields fields;
      const auto& items = props->items();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        std::string name = items[i].text();
        SigTypePtr field = convert(items[i + 1], path + ".properties." + name, depth + 1);
        if (!field) return nullptr;
        bool is_required = std::find(required.begin(), required.end(), name) != required.end();
        if (!is_required && !field->optional) {
          auto copy = std::make_shared<SigType>(*field);
          copy->optional = true;
          field = copy;
        }
        fields.emplace_back(name, field);
      }
      for (const std::string& r : required) {
        bool listed = false;
        for (const auto& f : fields)
          listed = listed || f.first == r;
        if (!listed) {
          fail(path + ".required", fmt::format("\"{}\" is required but not in properties", r));
          return nullptr;
        }
      }
      return SigType::structure(std::move(fields), nullable);
    }
    fail(path + ".type",
         fmt::format("unsupported type \"{}\" (supported: string, integer, number, boolean, array, "
                     "object)",
                     type));
    return nullptr;
  }
};

}  // namespace

std::optional<Signature> signature_from_schema(const HostValue& schema, std::string* error) {
  Converter c;
  SigTypePtr output = c.convert(schema, "output_schema", 0);
  if (!output) {
    *error = c.error;
    return std::nullopt;
  }
  Signature sig;
  sig.output = output;
  sig.text = to_string(*output);
  return sig;
}

}  // namespace ptc::mcp
