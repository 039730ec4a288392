#!/usr/bin/env python3
"""ptc repl end to end: a real pseudo-terminal (line editing, Ctrl-C, Ctrl-D,
arrow-up history across sessions) and a pipe (scripted use).

usage: repl_pty_test.py PATH/TO/ptc

Standard library only. Every wait is generous (the machine may be slow and
shared; PTC_REPL_TEST_TIMEOUT seconds, default 60) and a failure shows what
the REPL printed.
"""

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import termios
import time

PTC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
TIMEOUT = float(os.environ.get("PTC_REPL_TEST_TIMEOUT", "60"))

PROMPT = "ptc> "
CONTINUATION = "...> "
UP = "\x1b[A"
CTRL_C = "\x03"
CTRL_D = "\x04"
# Runs far longer than any test (10^12 steps; each loop stays under the loop
# limit), so only Ctrl-C ends it before the 60 s timeout.
ENDLESS = ("(loop [a 0] (when (< a 999) (loop [b 0] (when (< b 999) (loop [c 0] "
           "(when (< c 999) (loop [d 0] (when (< d 999) (recur (inc d)))) (recur (inc c)))) "
           "(recur (inc b)))) (recur (inc a))))")

# What the terminal shows, without the escape sequences libedit moves the
# cursor with: carriage returns go, a backspace takes back the character
# before it.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x07|\r")


def screen_text(raw):
    text = ESCAPES.sub("", raw.decode("utf-8", "replace"))
    while "\x08" in text:
        text = re.sub(r"[^\x08\n]?\x08", "", text, count=1)
    return text


class Failure(Exception):
    pass


class Repl:
    """ptc repl in a pseudo-terminal of its own."""

    def __init__(self, args, env):
        self.raw = b""
        self.consumed = 0  # screen text already matched by expect()
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes ptc, with the pty as its terminal
            try:
                os.execve(PTC, [PTC, "repl", *args], env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.status = None

    def text(self):
        return screen_text(self.raw)

    def _read(self, until):
        ready, _, _ = select.select([self.fd], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            return None
        self.raw += chunk
        return True

    def expect(self, pattern, what, timeout=TIMEOUT):
        """Waits for `pattern` (a regex, multi-line mode) after what earlier
        expects matched; returns the match."""
        regex = re.compile(pattern, re.M)
        until = time.monotonic() + timeout
        while True:
            text = self.text()
            m = regex.search(text, self.consumed)
            if m:
                self.consumed = m.end()
                return m
            got = self._read(until)
            if got is False:
                self.fail(f"{what}: timed out after {timeout:.0f} s waiting for /{pattern}/")
            if got is None:
                self.fail(f"{what}: the REPL closed the terminal while waiting for /{pattern}/")

    def fail(self, message):
        text = self.text()
        raise Failure(f"{message}\n--- the terminal showed (after the last match at "
                      f"{self.consumed}):\n{text[self.consumed:][-3000:]}\n--- before that:\n"
                      f"{text[:self.consumed][-1500:]}\n---")

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def prompt(self, what):
        self.expect(re.escape(PROMPT) + r"$", f"{what}: the prompt")

    def enter(self, line, result_pattern, what):
        """Types `line` and Enter; expects a line of output matching
        `result_pattern`, then the prompt."""
        self.send(line + "\r")
        m = self.expect(result_pattern, what)
        self.prompt(what)
        return m

    def wait_running(self, what, timeout=TIMEOUT):
        """Waits until the REPL has left line editing (the terminal is back in
        canonical mode, where Ctrl-C is a signal): the program is running."""
        until = time.monotonic() + timeout
        while not termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if time.monotonic() > until:
                self.fail(f"{what}: the terminal did not leave editing mode")
            self._read(min(until, time.monotonic() + 0.05))

    def wait_exit(self, what, timeout=TIMEOUT):
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return os.waitstatus_to_exitcode(status)
            if self._read(min(until, time.monotonic() + 0.2)) is None:
                time.sleep(0.05)  # the terminal is closed; the process is ending
        self.fail(f"{what}: the REPL did not exit within {timeout:.0f} s")

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)


def line(text):
    """A regex for one whole output line."""
    return "^" + re.escape(text) + "$"


def read_history(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def first_session(env, files):
    repl = Repl(["--timeout", "60000"], env)
    try:
        repl.expect(r":help lists the commands", "the banner")
        repl.prompt("start")

        repl.enter("(+ 1 2)", line("3"), "an expression's value")

        repl.send("(+ 10\r")
        repl.expect(re.escape(CONTINUATION) + "$", "a form left open asks for more")
        repl.send("  20\r")
        repl.expect(re.escape(CONTINUATION) + "$", "still open after the second line")
        repl.enter("  30)", line("60"), "a form over three lines")

        repl.enter("(def x 41)", line("#'x"), "def")
        repl.enter("(inc x)", line("42"), "a def carries to the next input")
        repl.enter("(+ *1 1)", line("43"), "*1 is the last result")

        repl.send("(doc map)\r")
        repl.expect(r"^Applies f to each item", "(doc map) prints the documentation")
        repl.expect(line("nil"), "(doc map) then shows its value, nil")
        repl.prompt("after (doc map)")

        # The caret sits under the column, counted in code points (λ is one).
        repl.send('(let [s "λλ"] (+ s 1))\r')
        repl.expect(r"^error: type_error at 1:15: .*$", "a type error with its line:column")
        repl.expect(line('  (let [s "λλ"] (+ s 1))'), "the error shows its source line")
        repl.expect(line("  " + " " * 14 + "^"), "the caret under column 15")
        repl.expect(r"^  hint: ", "the error's hint")
        repl.prompt("after the error")

        # An error on the second line of a form points there.
        repl.send("(let [n 1]\r")
        repl.expect(re.escape(CONTINUATION) + "$", "continuation before the error")
        repl.send("  (n 2))\r")
        repl.expect(r"^error: not_callable at 2:3: ", "an error on the form's second line")
        repl.expect(line("    (n 2))"), "the second line is shown")
        repl.expect(line("  " + "  " + "^"), "the caret under column 3")
        repl.prompt("after the second-line error")

        repl.enter(":context " + files["context"], r"^context from .*data/x", ":context FILE")
        repl.enter("(* data/x 2)", line("10"), "a data/ name from :context")

        repl.enter(":tools " + files["tools"], r"^tools from .*tool/get-user", ":tools FILE")
        repl.enter("(tool/get-user {:id 7})", line('{"name" "Ada"}'), "a tool from :tools")

        repl.send(":frobnicate\r")
        repl.expect(line("error: unknown command :frobnicate"), "an unknown command")
        repl.expect(r"^  hint: .*:help", "the unknown command's hint names :help")
        repl.prompt("after the unknown command")

        repl.enter(":reset", r"^definitions and \*1 \*2 \*3 forgotten$", ":reset")
        repl.send("x\r")
        repl.expect(r"^error: unbound_var at 1:1: ", ":reset forgets the def")
        repl.prompt("after :reset")
        repl.enter("(* data/x 3)", line("15"), ":reset keeps the context")

        # Ctrl-C stops a running program; the session goes on.
        repl.send(ENDLESS + "\r")
        repl.wait_running("the endless program")
        time.sleep(0.5)  # let it run a little
        repl.send(CTRL_C)
        repl.expect(r"^error: cancelled", "Ctrl-C stops the running program")
        repl.prompt("after the cancelled run")
        repl.enter("(+ 2 2)", line("4"), "the REPL works after Ctrl-C")

        # Ctrl-C at the prompt drops the form being typed.
        repl.send("(+ 100\r")
        repl.expect(re.escape(CONTINUATION) + "$", "continuation before Ctrl-C")
        repl.send("  200" + CTRL_C)
        repl.prompt("Ctrl-C at the continuation prompt")
        repl.enter("(* 111 3)", line("333"), "a fresh form after Ctrl-C (the dropped one is gone)")

        # Arrow-up recalls the previous line.
        repl.send(UP)
        repl.expect(re.escape("(* 111 3)") + "$", "arrow-up shows the previous line")
        repl.send("\r")
        repl.expect(line("333"), "the recalled line runs")
        repl.prompt("after the recalled line")

        repl.enter('(str "from-" "first")', line('"from-first"'), "the last line of session 1")
        repl.send(CTRL_D)
        code = repl.wait_exit("Ctrl-D")
        if code != 0:
            repl.fail(f"Ctrl-D: exit code {code}, expected 0")
    finally:
        repl.close()


def second_session(env):
    repl = Repl([], env)
    try:
        repl.prompt("session 2 starts")
        repl.send(UP)
        repl.expect(re.escape('(str "from-" "first")') + "$",
                    "arrow-up in a new session recalls the last line of the first")
        repl.send("\r")
        repl.expect(line('"from-first"'), "the line from the first session runs")
        repl.prompt("session 2 after the recalled line")
        repl.send(":quit\r")
        code = repl.wait_exit(":quit")
        if code != 0:
            repl.fail(f":quit: exit code {code}, expected 0")
    finally:
        repl.close()


def no_history_session(env, history):
    before = read_history(history)
    repl = Repl(["--no-history"], env)
    try:
        repl.prompt("--no-history starts")
        repl.send(UP + "\r")  # nothing to recall: an empty line
        repl.prompt("--no-history after arrow-up and Enter")
        repl.enter("(+ 20 22)", line("42"), "--no-history still runs forms")
        if "from-first" in repl.text():
            repl.fail("--no-history: arrow-up recalled a line of the history file")
        repl.send(CTRL_D)
        code = repl.wait_exit("--no-history Ctrl-D")
    finally:
        repl.close()
    if code != 0:
        raise Failure(f"--no-history: exit code {code}, expected 0")
    if read_history(history) != before:
        raise Failure("--no-history: the history file changed")


def check_history_file(history):
    lines = read_history(history)
    for expected in ["(+ 1 2)", "(+ 10", "  20", "  30)", "(def x 41)", ":reset", "(* 111 3)",
                     '(str "from-" "first")', '(let [s "λλ"] (+ s 1))']:
        if expected not in lines:
            raise Failure(f"the history file lacks the entered line {expected!r}:\n"
                          + "\n".join(lines))
    if lines.count("(* 111 3)") != 1:
        raise Failure("a line recalled and entered again right away is kept twice:\n"
                      + "\n".join(lines))
    if any("200" in l for l in lines):
        raise Failure("a line dropped with Ctrl-C is in the history:\n" + "\n".join(lines))


def piped(args, stdin, env):
    return subprocess.run([PTC, "repl", *args], input=stdin.encode(), capture_output=True,
                          env=env, timeout=TIMEOUT)


def non_tty(env, home, files):
    r = piped([], "(+ 1 2)\n", env)
    if r.returncode != 0 or r.stdout.decode() != "3\n":
        raise Failure(f"echo '(+ 1 2)' | ptc repl: exit {r.returncode}, stdout "
                      f"{r.stdout.decode()!r}, stderr {r.stderr.decode()!r}; expected '3\\n'")
    script = "(def y 2)\n(* y\n   21)\n*1\n(+ y \"a\")\n(inc y)\n:reset\n(+ 1\n"
    r = piped([], script, env)
    out, err = r.stdout.decode(), r.stderr.decode()
    if r.returncode != 0 or out != "#'y\n42\n42\n3\ndefinitions and *1 *2 *3 forgotten\n":
        raise Failure(f"piped script: exit {r.returncode}, stdout {out!r}, stderr {err!r}")
    if not re.search(r'^error: type_error at 1:1: .*\n  \(\+ y "a"\)\n  \^\n', err, re.M):
        raise Failure(f"piped script: the type error is not shown with its line:\n{err}")
    if "unclosed ( opened at 1:1" not in err:
        raise Failure(f"piped script: input that ends inside a form is not reported:\n{err}")
    if os.path.exists(os.path.join(home, ".ptc_history")):
        raise Failure("a piped session wrote a history file")
    # The caret lines up under a tab (kept as a tab) and in a long line (shown
    # as a window around the column).
    for source, target in (('(let [s "a"]\t(+ s 1))', "(+ s 1)"),
                           ("(let [v [" + "0 " * 150 + "]] (+ v 1))", "(+ v 1)")):
        r = piped([], source + "\n", env)
        err = r.stderr.decode().splitlines()
        if len(err) < 3 or not err[0].startswith("error: type_error at 1:"):
            raise Failure(f"{source!r}: expected a type error, got {r.stderr.decode()!r}")
        shown, caret = err[1].expandtabs(8), err[2].expandtabs(8)
        if target not in shown or caret.strip() != "^" or caret.index("^") != shown.index(target):
            raise Failure(f"{source!r}: the caret is not under {target}:\n{shown}\n{caret}")
        if len(source) > 200 and not (shown.startswith("  ...") and len(shown) < 120):
            raise Failure(f"a long line is not shown as a window around the column:\n{shown}")
    r = piped(["--timeout", "60000", "--context", files["context"], "--tools", files["tools"]],
              "(inc data/x)\n(tool/get-user {:id 7})\n", env)
    if r.returncode != 0 or r.stdout.decode() != '6\n{"name" "Ada"}\n':
        raise Failure(f"ptc repl --context --tools: exit {r.returncode}, stdout "
                      f"{r.stdout.decode()!r}, stderr {r.stderr.decode()!r}")


def help_and_command_line(env):
    usage = subprocess.run([PTC, "--help"], capture_output=True, env=env, timeout=TIMEOUT)
    if "ptc repl" not in usage.stdout.decode():
        raise Failure(f"ptc --help does not list repl:\n{usage.stdout.decode()}")
    for args in (["help", "repl"], ["repl", "--help"]):
        text = subprocess.run([PTC, *args], capture_output=True, env=env,
                              timeout=TIMEOUT).stdout.decode()
        for expected in ("usage: ptc repl", "$PTC_REPL_HISTORY", "~/.ptc_history", "--no-history",
                         ":context FILE", ":tools FILE", ":reset", ":quit", "--timeout MS"):
            if expected not in text:
                raise Failure(f"ptc {' '.join(args)} does not mention {expected}:\n{text}")
    r = piped(["--no-such-option"], "", env)
    if r.returncode != 2 or "--no-such-option" not in r.stderr.decode():
        raise Failure(f"ptc repl --no-such-option: exit {r.returncode}, stderr "
                      f"{r.stderr.decode()!r}; expected exit 2 naming the option")
    r = piped(["--timeout", "0"], "", env)
    if r.returncode != 2 or "--timeout" not in r.stderr.decode():
        raise Failure(f"ptc repl --timeout 0: exit {r.returncode}, stderr {r.stderr.decode()!r}")


def main():
    if not PTC or not os.access(PTC, os.X_OK):
        print("usage: repl_pty_test.py PATH/TO/ptc", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ptc-repl-test-") as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        history = os.path.join(tmp, "history")
        files = {"context": os.path.join(tmp, "context.json"),
                 "tools": os.path.join(tmp, "tools.json")}
        with open(files["context"], "w") as f:
            json.dump({"x": 5, "name": "Ada"}, f)
        with open(files["tools"], "w") as f:
            json.dump({"get-user": [{"args": {"id": 7}, "result": {"name": "Ada"}}]}, f)
        env = {k: v for k, v in os.environ.items() if k not in ("PTC_REPL_HISTORY", "EDITRC")}
        env.update(HOME=home, TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        tty_env = dict(env, PTC_REPL_HISTORY=history)
        # The history checks need the first session to have ended well.
        checks = [
            ("a terminal session", lambda: first_session(tty_env, files), None),
            ("the history file", lambda: check_history_file(history), "a terminal session"),
            ("a second session sees the first one's history", lambda: second_session(tty_env),
             "a terminal session"),
            ("--no-history", lambda: no_history_session(tty_env, history), "a terminal session"),
            ("stdin not a terminal", lambda: non_tty(env, home, files), None),
            ("help and command line", lambda: help_and_command_line(env), None),
        ]
        failed = set()
        for name, check, needs in checks:
            if needs in failed:
                failed.add(name)
                print(f"FAIL: {name}: not checked, as \"{needs}\" failed")
                continue
            try:
                check()
                print(f"ok: {name}")
            except (Failure, subprocess.TimeoutExpired) as e:
                failed.add(name)
                print(f"FAIL: {name}: {e}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
