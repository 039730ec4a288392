#include "protocol/upstream/reply_decoding.hpp"

#include "include/ptc/error.hpp"

namespace ptc::upstream {

HostValue tool_payload(const HostValue& result, std::string* text_out) {
  std::string text;
  size_t texts = 0;
  if (const HostValue* content = result.get("content");
      content && content->kind() == HostValue::Kind::Vector) {
    for (const HostValue& item : content->items()) {
      if (item.kind() != HostValue::Kind::Map) continue;
      const HostValue* type = item.get("type");
      const HostValue* t = item.get("text");
      if (type && type->kind() == HostValue::Kind::String && type->text() == "text" && t &&
          t->kind() == HostValue::Kind::String) {
        if (texts++) text += "\n";
        text += t->text();
      }
    }
  }
  if (text_out) *text_out = text;
  if (const HostValue* sc = result.get("structuredContent"); sc && !sc->is_nil()) return *sc;
  if (texts == 0) return HostValue::nil();
  if (texts == 1) {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
      try {
        return parse_json(text);
      } catch (const LispError&) {}
    }
  }
  return HostValue::string(std::move(text));
}

}  // namespace ptc::upstream
