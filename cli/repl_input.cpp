#include "cli/repl_input.hpp"

#include <histedit.h>

#include <clocale>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

namespace ptc::cli {

namespace {

// libedit decodes keys, and measures what it shows, by the locale's
// character set; programs are UTF-8 text, so a C locale gets C.UTF-8.
void use_utf8_locale() {
  const char* name = std::setlocale(LC_CTYPE, "");
  if (!name || std::strcmp(name, "C") == 0 || std::strcmp(name, "POSIX") == 0)
    std::setlocale(LC_CTYPE, "C.UTF-8");
}

void strip_line_break(std::string* line) {
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r'))
    line->pop_back();
}

class TerminalInput final : public ReplInput {
 public:
  explicit TerminalInput(std::optional<HistoryFile> file) : file_(std::move(file)) {
    use_utf8_locale();
    history_ = history_init();
    history(history_, &event_, H_SETSIZE, static_cast<int>(HistoryFile::kMaxEntries));
    history(history_, &event_, H_SETUNIQUE, 1);
    if (file_) {
      std::vector<std::string> lines = file_->load();
      for (const std::string& line : lines)
        history(history_, &event_, H_ENTER, line.c_str());
      if (!lines.empty()) last_ = lines.back();
    }

    editor_ = el_init("ptc", stdin, stdout, stderr);
    el_set(editor_, EL_CLIENTDATA, this);
    el_set(editor_, EL_EDITOR, "emacs");
    // libedit puts the terminal back in order when a signal ends the process
    // at the prompt, and follows window size changes.
    el_set(editor_, EL_SIGNAL, 1);
    el_set(editor_, EL_PROMPT, &TerminalInput::prompt_of);
    el_set(editor_, EL_HIST, history, history_);
    // While a line is edited, Ctrl-C arrives as a key rather than as SIGINT
    // (which is left for stopping a running program), and drops the line.
    el_set(editor_, EL_SETTY, "-d", "-isig", nullptr);
    // (The wide-character calls: el_set's EL_ADDFN copies the name and help
    // and never frees them.)
    el_wset(editor_, EL_ADDFN, L"ptc-drop-line", L"drop the line (and the form) being typed",
            &TerminalInput::drop_line);
    el_wset(editor_, EL_BIND, L"^C", L"ptc-drop-line", nullptr);
    el_source(editor_, nullptr);  // ~/.editrc, as other libedit programs read it
  }

  ~TerminalInput() override {
    el_end(editor_);
    history_end(history_);
  }

  Result read_line(const char* prompt, std::string* line) override {
    prompt_ = prompt;
    dropped_ = false;
    // Editing mode (no echo by the terminal, Ctrl-C a key) before the prompt
    // shows, not after it as el_gets would: keys typed as soon as the prompt
    // appears are edited, not echoed twice or taken as signals.
    el_set(editor_, EL_PREP_TERM, 1);
    int count = 0;
    const char* text = el_gets(editor_, &count);
    if (dropped_) return Result::Interrupted;
    if (!text || count <= 0) {
      std::fputs("\n", stdout);  // the shell's prompt starts on a line of its own
      return Result::End;
    }
    line->assign(text);  // count is in characters in some libedit versions, bytes in others
    strip_line_break(line);
    return Result::Line;
  }

  // A line entered again right away (arrow-up, Enter) is kept once.
  void remember(const std::string& line) override {
    if (line == last_) return;
    last_ = line;
    history(history_, &event_, H_ENTER, line.c_str());
    if (file_) file_->append(line);
  }

 private:
  static TerminalInput* self(EditLine* editor) {
    TerminalInput* input = nullptr;
    el_get(editor, EL_CLIENTDATA, &input);
    return input;
  }

  static char* prompt_of(EditLine* editor) { return const_cast<char*>(self(editor)->prompt_); }

  // Shows ^C at the end of the line and ends it as Enter would (a pushed
  // newline runs libedit's own newline command, which moves the cursor below
  // the line); read_line then drops it.
  static unsigned char drop_line(EditLine* editor, int) {
    self(editor)->dropped_ = true;
    const LineInfoW* info = el_wline(editor);
    el_cursor(editor, static_cast<int>(info->lastchar - info->cursor));
    el_winsertstr(editor, L"^C");
    el_push(editor, "\n");
    return CC_REFRESH;
  }

  std::optional<HistoryFile> file_;
  History* history_ = nullptr;
  HistEvent event_ = {};
  EditLine* editor_ = nullptr;
  std::string last_;  // the newest line in the history
  const char* prompt_ = "";
  bool dropped_ = false;
};

class PlainInput final : public ReplInput {
 public:
  Result read_line(const char*, std::string* line) override {
    if (!std::getline(std::cin, *line)) return Result::End;
    strip_line_break(line);
    return Result::Line;
  }
  void remember(const std::string&) override {}
};

}  // namespace

std::unique_ptr<ReplInput> terminal_input(std::optional<HistoryFile> history) {
  return std::make_unique<TerminalInput>(std::move(history));
}

std::unique_ptr<ReplInput> plain_input() {
  return std::make_unique<PlainInput>();
}

}  // namespace ptc::cli
