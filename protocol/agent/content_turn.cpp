// Content mode: finding the program in a reply, and one assistant turn.
#include "protocol/agent/content_turn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "protocol/agent/program_turn.hpp"
#include "protocol/agent/run_state.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::protocol {

namespace {

constexpr std::string_view kWhitespace = " \t\n\r\f\v";

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(kWhitespace);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kWhitespace);
  return s.substr(b, e - b + 1);
}

std::string normalize_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Block {
  std::string tag;  // "clojure", "lisp", or "" for any other tag and none
  std::string body;
};

bool is_program_tag(std::string_view tag) {
  return tag == "clojure" || tag == "lisp";
}

// Fenced blocks, read line by line so that ``` inside a string on a code line
// is not a fence.
std::vector<Block> fenced_blocks(std::string_view text) {
  std::vector<Block> blocks;
  std::optional<Block> open;
  bool first_line = true;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    std::string_view line = trim(raw);
    pos = end + 1;
    if (!open) {
      if (line.starts_with("```") &&
          line.substr(3).find_first_of(kWhitespace) == std::string_view::npos) {
        std::string_view tag = line.substr(3);
        open = Block{is_program_tag(tag) ? std::string(tag) : std::string(), {}};
        first_line = true;
      }
      continue;
    }
    if (line == "```" || line == "</clojure>" || line == "</lisp>") {
      blocks.push_back(std::move(*open));
      open.reset();
      continue;
    }
    if (!first_line) open->body += '\n';
    open->body.append(raw);
    first_line = false;
  }
  return blocks;
}

// <clojure>...</clojure> or <lisp>...</lisp> (either closer ends either
// opener), the body after the opener's spaces and one newline.
std::vector<std::string> xml_blocks(std::string_view text) {
  std::vector<std::string> blocks;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t a = text.find("<clojure>", pos);
    size_t b = text.find("<lisp>", pos);
    size_t open = std::min(a, b);
    if (open == std::string_view::npos) break;
    size_t start = open + (open == a ? 9 : 6);
    while (start < text.size() && (text[start] == ' ' || text[start] == '\t'))
      ++start;
    if (start < text.size() && text[start] == '\n') ++start;
    size_t c = text.find("</clojure>", start);
    size_t d = text.find("</lisp>", start);
    size_t close = std::min(c, d);
    if (close == std::string_view::npos) break;
    blocks.emplace_back(text.substr(start, close - start));
    pos = close + (close == c ? 10 : 7);
  }
  return blocks;
}

// One code point of valid UTF-8 at s[i] (its length in *len), or nullopt.
std::optional<char32_t> decode(std::string_view s, size_t i, size_t* len) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return std::nullopt;
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  *len = n;
  return cp;
}

bool invisible(char32_t c) {
  return c == 0xFEFF || c == 0x200B || c == 0x200C || c == 0x200D || c == 0x00A0 || c == 0x202F ||
         c == 0x2060 || c == 0xFFFE || c == 0x00AD || c == 0x180E || (c >= 0x2000 && c <= 0x200A);
}

// Characters models put in code that the reader does not take: invisible
// ones are dropped, curly quotes become ASCII.
std::string sanitize(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  for (size_t i = 0; i < code.size();) {
    size_t len = 1;
    std::optional<char32_t> cp = decode(code, i, &len);
    if (!cp) {
      out += code[i++];
      continue;
    }
    char32_t c = *cp;
    if (invisible(c)) {
      // dropped
    } else if (c == 0x201C || c == 0x201D || c == 0x201E || c == 0x201F || c == 0x2033 ||
               c == 0x2036) {
      out += '"';
    } else if (c == 0x2018 || c == 0x2019 || c == 0x201A || c == 0x201B || c == 0x2032 ||
               c == 0x2035) {
      out += '\'';
    } else {
      out.append(code.substr(i, len));
    }
    i += len;
  }
  return std::string(trim(out));
}

ContentProgram one_of(const std::vector<std::string>& candidates) {
  ContentProgram p;
  p.count = candidates.size();
  if (candidates.size() == 1) {
    p.kind = ContentProgram::Kind::Program;
    p.source = sanitize(candidates[0]);
  } else if (candidates.size() > 1) {
    p.kind = ContentProgram::Kind::Multiple;
  }
  return p;
}

std::vector<std::string> starting_with_paren(const std::vector<std::string>& bodies) {
  std::vector<std::string> out;
  for (const std::string& b : bodies)
    if (trim(b).starts_with("(")) out.emplace_back(trim(b));
  return out;
}

constexpr std::string_view kNoProgram =
    "Your reply held no PTC-Lisp program. Write the program in one ```clojure fenced block "
    "(or reply with just the program, starting with \"(\").";

// The reply as the conversation keeps it: whole when it gave the answer,
// else only its program.
void keep_reply(RunState& s, const std::string& content, bool whole_reply) {
  ChatMessage m;
  m.role = "assistant";
  m.content = whole_reply ? content : strip_to_program(content);
  s.messages.push_back(std::move(m));
}

// A turn without a program: the model is told what was wrong.
void continue_with_error(RunState& s, const std::string& content, AgentTurn t,
                         std::string_view reason, const std::string& message) {
  t.result = reason_record(reason, message);
  keep_reply(s, content, false);
  s.add_user(error_feedback(message, s.turn_info(), s.options.format));
  s.turns.push_back(std::move(t));
  s.next_turn();
}

// The user message that reports a decided program, or nullopt when the run
// ends with it.
std::optional<std::string> program_feedback(const RunState& s, const Step& step,
                                            const ProgramTurn& decided) {
  const AgentOptions& o = s.options;
  switch (decided.verdict) {
    case ProgramVerdict::Failed:
    case ProgramVerdict::Answered:
    case ProgramVerdict::MemoryExceeded:
      return std::nullopt;
    case ProgramVerdict::Error: {
      // The message the lisp_eval payload of this error would carry.
      const HostValue payload = step_error_payload(step, o.format);
      const HostValue* message = payload.get("message");
      return error_feedback(message ? message->text() : "", s.turn_info(), o.format);
    }
    case ProgramVerdict::ReturnMismatch:
      return error_feedback(decided.message, s.turn_info(), o.format);
    case ProgramVerdict::MemoryRolledBack:
      return decided.message +
             " The memory changes of your last program were rolled back; use less memory, e.g. "
             "by processing the data in smaller batches.";
    case ProgramVerdict::Kept:
      break;
  }
  ExecutionFeedback fb = execution_feedback(step, s.memory, o.max_turns, o.format);
  std::string feedback = fb.feedback.empty() ? "user=> nil" : fb.feedback;
  return feedback + turn_info_line(s.turn_info());
}

}  // namespace

ContentProgram extract_content_program(std::string_view raw) {
  std::string text = normalize_newlines(raw);
  std::vector<Block> blocks = fenced_blocks(text);
  std::vector<std::string> tagged;
  std::vector<std::string> other;
  for (Block& b : blocks) {
    if (b.tag.empty())
      other.push_back(std::move(b.body));
    else if (!sanitize(b.body).empty())  // an empty block is no program (nor a second one)
      tagged.push_back(std::move(b.body));
  }
  if (!tagged.empty()) return one_of(tagged);
  if (std::vector<std::string> lisp = starting_with_paren(other); !lisp.empty())
    return one_of(lisp);
  if (std::vector<std::string> lisp = starting_with_paren(xml_blocks(text)); !lisp.empty())
    return one_of(lisp);
  std::string whole = sanitize(text);
  if (whole.starts_with("(")) return one_of({whole});
  return {};
}

std::string strip_to_program(std::string_view raw) {
  std::string text = normalize_newlines(raw);
  std::optional<Block> only;
  for (Block& b : fenced_blocks(text)) {
    if (b.tag.empty()) continue;
    if (only) return std::string(raw);
    only = std::move(b);
  }
  if (!only) return std::string(raw);
  return fmt::format("```{}\n{}\n```", only->tag, only->body);
}

std::string_view content_mode_instructions() {
  return "You work by writing PTC-Lisp programs. Reply with exactly one ```clojure fenced code "
         "block holding the program and no text outside it; put your reasoning in ;; comments "
         "inside the code. There are no native tools: call the app tools listed below inside "
         "the program as (tool/name {...}). The program runs and what it produced (its value, "
         "its println output, the names it defined) comes back to you in the next message; "
         "names defined with def stay available in later programs, and *1 *2 *3 are the values "
         "of the last programs. End the task with (return value), or with (fail reason) when it "
         "cannot be done. Never write several code blocks: names defined in separate blocks are "
         "not shared.";
}

std::string for_content_mode(std::string text) {
  const std::pair<std::string_view, std::string_view> rewordings[] = {
      {"call the native tool `lisp_eval` with a `program` string",
       "write a program in a ```clojure block"},
      {"App tools a lisp_eval program can call", "App tools a program can call"},
  };
  for (const auto& [from, to] : rewordings)
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

void handle_content_turn(RunState& s, const LlmResponse& r) {
  const std::string content = r.content ? *r.content : std::string();
  AgentTurn t = turn_record(s, r);
  ContentProgram p = extract_content_program(content);
  if (p.kind == ContentProgram::Kind::None) {
    continue_with_error(s, content, std::move(t), "no_code_found", std::string(kNoProgram));
    return;
  }
  if (p.kind == ContentProgram::Kind::Multiple) {
    std::string message = fmt::format(
        "Your reply held {} code blocks, and exactly one is needed. Put the whole program in a "
        "single ```clojure block: names defined in separate blocks are not shared.",
        p.count);
    continue_with_error(s, content, std::move(t), "multiple_code_blocks", message);
    return;
  }

  Step step = run_program(s, p.source);
  ProgramTurn decided = decide_program_turn(s, p.source, step, ProgramEnds::Run, t);
  keep_reply(s, content, decided.verdict == ProgramVerdict::Answered);
  if (std::optional<std::string> feedback = program_feedback(s, step, decided))
    s.add_user(std::move(*feedback));
  s.turns.push_back(std::move(t));
  settle_program_turn(s, decided, step);
}

}  // namespace ptc::protocol
