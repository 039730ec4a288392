#include "protocol/agent/final_answer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "runtime/error.hpp"
#include "runtime/strings.hpp"

namespace ptc::protocol {

namespace {

using SKind = SigType::Kind;

// Embedded {...}/[...] candidates tried before giving up: a model's answer
// may mention brackets in prose, but a long text must not cost a parse per
// bracket.
constexpr size_t kMaxEmbeddedAttempts = 8;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::optional<HostValue> try_json(std::string_view text) {
  try {
    return parse_json(text);
  } catch (const LispError&) {
    return std::nullopt;
  }
}

// The text split into lines (without their line ends).
std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    lines.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// A closed markdown code block: its tag ("" when untagged) and body.
struct CodeBlock {
  std::string_view tag;
  std::string body;
};

// Opening fence: a line whose trimmed text starts with ```; the rest is the
// tag. Closing: a line that is exactly ``` (trimmed), or </clojure> /
// </lisp> for the tags models sometimes close that way. A block left open
// at the end of the text is not a block.
std::vector<CodeBlock> code_blocks(std::string_view content) {
  std::vector<CodeBlock> blocks;
  std::optional<CodeBlock> open;
  for (std::string_view raw : lines_of(content)) {
    std::string_view line = trim(raw);
    if (!open) {
      if (line.starts_with("```")) open = CodeBlock{trim(line.substr(3)), {}};
      continue;
    }
    if (line == "```" || line == "</clojure>" || line == "</lisp>") {
      blocks.push_back(std::move(*open));
      open.reset();
      continue;
    }
    open->body.append(raw);
    open->body += '\n';
  }
  return blocks;
}

// The end of the balanced {...} or [...] starting at `start` (strings and
// escapes respected), or npos.
size_t balanced_end(std::string_view s, size_t start) {
  std::vector<char> closers;
  bool in_string = false;
  for (size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      closers.push_back(c == '{' ? '}' : ']');
    } else if (c == '}' || c == ']') {
      if (closers.empty() || closers.back() != c) return std::string_view::npos;
      closers.pop_back();
      if (closers.empty()) return i + 1;
    }
  }
  return std::string_view::npos;
}

// Lenient extraction: the whole text, then a ```json (or untagged) block,
// then the first {...}/[...] in the text that parses.
std::optional<HostValue> extract_json(std::string_view text) {
  if (auto v = try_json(text)) return v;
  for (const CodeBlock& b : code_blocks(text))
    if (b.tag == "json" || b.tag.empty())
      if (auto v = try_json(b.body)) return v;
  size_t attempts = 0;
  for (size_t i = text.find_first_of("{[");
       i != std::string_view::npos && attempts++ < kMaxEmbeddedAttempts;
       i = text.find_first_of("{[", i + 1)) {
    size_t end = balanced_end(text, i);
    if (end == std::string_view::npos) continue;
    if (auto v = try_json(text.substr(i, end - i))) return v;
  }
  return std::nullopt;
}

// Map keys as the agent's result carries them: strings, with - as _ (as a
// program's returned value is normalised).
HostValue normalize_keys(const HostValue& v) {
  auto same = [](const HostValue& x) { return x; };
  auto key = [](const HostValue& k) {
    if (k.kind() != HostValue::Kind::String && k.kind() != HostValue::Kind::Keyword) return k;
    std::string name = k.text();
    std::replace(name.begin(), name.end(), '-', '_');
    return HostValue::string(std::move(name));
  };
  return map_host_value(v, same, key);
}

FinalAnswer failure(std::string error) {
  FinalAnswer a;
  a.error = std::move(error);
  return a;
}

FinalAnswer checked(const SigType& type, const HostValue& value) {
  SignatureCheck check = check_value(type, value, CheckMode::Strict);
  if (!check.ok)
    return failure(fmt::format("Return validation failed: {}: {}",
                               check.path.empty() ? "root" : check.path, check.message));
  FinalAnswer a;
  a.ok = true;
  a.value = normalize_keys(check.value);
  return a;
}

}  // namespace

FinalAnswer parse_final_answer(std::string_view content, const Signature* signature,
                               JsonExtraction extraction) {
  const SigType* type = signature ? signature->output.get() : nullptr;
  if (!type || type->kind == SKind::String || type->kind == SKind::Any) {
    FinalAnswer a;
    a.ok = true;
    a.value = HostValue::string(std::string(content));  // untrimmed: the text is the answer
    return a;
  }
  std::string_view text = trim(content);
  if (type->kind == SKind::DateTime) {
    // Quoted JSON text, null for :datetime?, or the bare ISO-8601 text.
    std::optional<HostValue> json = try_json(text);
    HostValue candidate = json && (json->kind() == HostValue::Kind::String || json->is_nil())
                              ? *json
                              : HostValue::string(std::string(text));
    SignatureCheck check = check_value(*type, candidate, CheckMode::Strict);
    if (!check.ok) {
      std::string quoted;
      append_quoted(quoted, content);
      return failure(fmt::format("Could not parse datetime from response: {}", quoted));
    }
    FinalAnswer a;
    a.ok = true;
    a.value = check.value;
    return a;
  }
  bool structured =
      type->kind == SKind::Struct || type->kind == SKind::Map || type->kind == SKind::List;
  std::optional<HostValue> value =
      extraction == JsonExtraction::Lenient && structured ? extract_json(text) : try_json(text);
  if (!value) return failure("Could not parse JSON from response.");
  if (extraction == JsonExtraction::Lenient && type->kind == SKind::List &&
      value->kind() == HostValue::Kind::Map) {
    const HostValue* items = value->get("items");
    if (items && items->kind() == HostValue::Kind::Vector) {
      HostValue inner = *items;  // copied first: `items` points into *value
      value = std::move(inner);
    }
  }
  return checked(*type, *value);
}

bool has_fenced_program(std::string_view content) {
  for (const CodeBlock& b : code_blocks(content)) {
    // Any other tag counts as untagged: a program under ```python is still
    // a program, while JSON under ```json is not.
    if (b.tag == "clojure" || b.tag == "lisp" || trim(b.body).starts_with("(")) return true;
  }
  return false;
}

}  // namespace ptc::protocol
