/* The C API (include/ptc/ptc.h) from C: values and their JSON form, prints,
 * memory, every error path with line:column, tools (success, error replies,
 * calls from pmap worker threads), limits, cancellation from another thread,
 * sessions, compiled programs, prepared contexts shared by threads, invalid
 * arguments, and executions (deferred tools, pending calls, resumes from
 * other threads, dump and load, cancel), and isolated runs through a worker
 * pool (the same results as in-process, tools called here, a missing
 * ptc-worker reported). Compiled as C11 with -Wall -Wextra -Werror. */
#define _POSIX_C_SOURCE 200809L

#include <ptc/ptc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- checks */

static int g_checks = 0;
static int g_failures = 0;
static const char* g_test = "";

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    ++g_checks;                                                                            \
    if (!(cond)) {                                                                         \
      ++g_failures;                                                                        \
      fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, g_test, #cond); \
    }                                                                                      \
  } while (0)

/* How a text is checked against the expected one. */
typedef enum { EQUALS, CONTAINS, STARTS_WITH } text_check;

static void check_text(const char* file, int line, const char* expression, const char* actual,
                       const char* expected, text_check how) {
  static const char* const kExpected[] = {"", "it to contain ", "it to start with "};
  ++g_checks;
  int ok = actual && (how == EQUALS     ? strcmp(actual, expected) == 0
                      : how == CONTAINS ? strstr(actual, expected) != NULL
                                        : strncmp(actual, expected, strlen(expected)) == 0);
  if (ok) return;
  ++g_failures;
  fprintf(stderr, "%s:%d: %s: %s is \"%s\", expected %s\"%s\"\n", file, line, g_test, expression,
          actual ? actual : "(NULL)", kExpected[how], expected);
}

#define CHECK_STR(actual, expected) \
  check_text(__FILE__, __LINE__, #actual, (actual), (expected), EQUALS)
#define CHECK_CONTAINS(actual, part) \
  check_text(__FILE__, __LINE__, #actual, (actual), (part), CONTAINS)
#define CHECK_PREFIX(actual, prefix) \
  check_text(__FILE__, __LINE__, #actual, (actual), (prefix), STARTS_WITH)

#define CHECK_STATUS(call, expected)                                                           \
  do {                                                                                         \
    ptc_status s_ = (call);                                                                    \
    ++g_checks;                                                                                \
    if (s_ != (expected)) {                                                                    \
      ++g_failures;                                                                            \
      fprintf(stderr, "%s:%d: %s: %s gave %s (%s), expected %s\n", __FILE__, __LINE__, g_test, \
              #call, ptc_status_name(s_), ptc_last_error(), ptc_status_name(expected));        \
    }                                                                                          \
  } while (0)

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* Runs `source` with `options`; the result (never NULL for OK and
 * PROGRAM_ERROR) must be freed. */
static ptc_result* run(const char* source, const ptc_options* options, ptc_status expected) {
  ptc_result* result = NULL;
  CHECK_STATUS(ptc_run(source, PTC_NTS, options, &result), expected);
  CHECK(result != NULL);
  return result;
}

/* The JSON of a successful run's value ("(failed)" when it failed). */
static char* value_of(const char* source, const ptc_options* options) {
  ptc_result* r = run(source, options, PTC_OK);
  const char* json = r && ptc_result_ok(r) ? ptc_result_value_json(r, NULL) : "(failed)";
  if (r && !ptc_result_ok(r)) fprintf(stderr, "  %s\n", ptc_result_error_text(r, NULL));
  char* copy = strdup(json ? json : "(NULL)");
  ptc_result_free(r);
  return copy;
}

#define CHECK_VALUE(source, options, expected) \
  do {                                         \
    char* v_ = value_of(source, options);      \
    CHECK_STR(v_, expected);                   \
    free(v_);                                  \
  } while (0)

/* ---------------------------------------------------------------- values */

static void test_version(void) {
  g_test = "version";
  CHECK(strlen(ptc_version()) > 0);
  CHECK(strchr(ptc_version(), '.') != NULL);
  CHECK_STR(ptc_status_name(PTC_INVALID_ARGUMENT), "invalid_argument");
  CHECK_STR(ptc_status_name((ptc_status)42), "unknown");
  CHECK_STR(ptc_status_name((ptc_status)-1), "unknown");
}

static void test_values(void) {
  g_test = "values";
  ptc_result* r = run("(+ 1 2)", NULL, PTC_OK);
  CHECK(ptc_result_ok(r) == 1);
  size_t len = 0;
  CHECK_STR(ptc_result_value_json(r, &len), "3");
  CHECK(len == 1);
  CHECK_STR(ptc_result_printed(r, NULL), "3");
  CHECK(ptc_result_error_reason(r) == NULL);
  CHECK_STR(ptc_result_error_text(r, NULL), "");
  CHECK(ptc_result_error_line(r) == 0);
  ptc_result_free(r);

  CHECK_VALUE("nil", NULL, "null");
  CHECK_VALUE("[true false]", NULL, "[true,false]");
  CHECK_VALUE("2.5", NULL, "2.5");
  CHECK_VALUE("(* 1.0 4)", NULL, "4.0");
  CHECK_VALUE("(* 99999999999 99999999999 99999999999)", NULL, "999999999970000000000299999999999");
  CHECK_VALUE("\"h\\u00e9\\n\"", NULL, "\"h\xc3\xa9\\n\"");
  CHECK_VALUE(":total", NULL, "\"total\"");
  CHECK_VALUE("{:a 1 :b [1 2.5 \"x\"] :c {\"d\" nil}}", NULL,
              "{\"a\":1,\"b\":[1,2.5,\"x\"],\"c\":{\"d\":null}}");
  CHECK_VALUE("#{7}", NULL, "[7]");
  CHECK_VALUE("(list 1 2)", NULL, "[1,2]");
  /* Values with no JSON form become strings of their printed form. */
  CHECK_VALUE("[(fn [x] x) #\"a+\" (/ 1.0 0.0) (- (/ 1.0 0.0))]", NULL,
              "[\"#fn[x]\",\"#\\\"a+\\\"\",\"##Inf\",\"##-Inf\"]");
  CHECK_VALUE("{nil 1 [1 2] 3 true 4 5 6}", NULL, "{\"nil\":1,\"[1 2]\":3,\"true\":4,\"5\":6}");
  CHECK_VALUE("(def x 1)", NULL, "\"#'x\"");

  r = run("{:a [1 2 3 4]}", NULL, PTC_OK);
  CHECK_STR(ptc_result_printed(r, NULL), "{:a [1 2 3 4]}");
  CHECK_PREFIX(ptc_result_json(r, NULL),
               "{\"ok\":true,\"value\":{\"a\":[1,2,3,4]},\"printed\":\"{:a [1 2 3 4]}\","
               "\"truncated\":false,\"returned\":false,\"prints\":[],\"memory\":{},"
               "\"tool_calls\":[],\"pmap_calls\":[],\"usage\":{");
  ptc_result_free(r);
}

static void test_options(void) {
  g_test = "options";
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_context_json(o, "{\"xs\": [1, 2, 3], \"name\": \"Ada\"}", PTC_NTS),
               PTC_OK);
  CHECK_VALUE("[(count data/xs) data/name]", o, "[3,\"Ada\"]");
  CHECK_STATUS(ptc_options_set_filter_context(o, 0), PTC_OK);
  CHECK_VALUE("(reduce + data/xs)", o, "6");

  CHECK_STATUS(ptc_options_set_history_json(o, "[1, 2]", PTC_NTS), PTC_OK);
  CHECK_VALUE("[*1 *2 *3]", o, "[2,1,null]");

  CHECK_STATUS(ptc_options_set_float_precision(o, 2), PTC_OK);
  CHECK_VALUE("(/ 1.0 3)", o, "0.33");
  CHECK_STATUS(ptc_options_set_float_precision(o, -1), PTC_OK);
  CHECK_VALUE("(/ 1.0 4)", o, "0.25");

  CHECK_STATUS(ptc_options_set_display_limit(o, 2), PTC_OK);
  ptc_result* r = run("[1 2 3 4]", o, PTC_OK);
  CHECK_STR(ptc_result_printed(r, NULL), "[1 2 ...] (2/4)");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"truncated\":true");
  CHECK_STR(ptc_result_value_json(r, NULL), "[1,2,3,4]");
  ptc_result_free(r);

  CHECK_STATUS(ptc_options_set_signature(o, "[:string]"), PTC_OK);
  r = run("[1]", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "validation_error");
  ptc_result_free(r);
  CHECK_VALUE("[\"a\"]", o, "[\"a\"]");
  CHECK_STATUS(ptc_options_set_signature(o, NULL), PTC_OK);
  CHECK_VALUE("[1]", o, "[1]");

  /* (return v) */
  r = run("(return 5) 6", o, PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "5");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"returned\":true");
  ptc_result_free(r);
  ptc_options_free(o);
}

static void test_prints(void) {
  g_test = "prints";
  ptc_result* r = run("(println \"hi\") (println \"there\" 2) (prn :k) 5", NULL, PTC_OK);
  CHECK(ptc_result_prints_count(r) == 3);
  size_t len = 0;
  CHECK_STR(ptc_result_print(r, 0, &len), "hi");
  CHECK(len == 2);
  CHECK_STR(ptc_result_print(r, 1, NULL), "there 2");
  CHECK_STR(ptc_result_print(r, 2, NULL), ":k");
  CHECK(ptc_result_print(r, 3, NULL) == NULL);
  CHECK_CONTAINS(ptc_last_error(), "print 3 is out of range: the run printed 3 lines");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"prints\":[\"hi\",\"there 2\",\":k\"]");
  ptc_result_free(r);
}

static void test_memory(void) {
  g_test = "memory";
  ptc_result* r = run("(def x 41) (def names [\"a\" :b]) (defn twice [n] (* 2 n)) x", NULL, PTC_OK);
  const char* memory = ptc_result_memory_json(r, NULL);
  CHECK_CONTAINS(memory, "\"x\":41");
  CHECK_CONTAINS(memory, "\"names\":[\"a\",\"b\"]");
  CHECK_CONTAINS(memory, "\"twice\":\"#fn[");
  /* The memory of one run given to the next. */
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_memory_json(o, memory, PTC_NTS), PTC_OK);
  ptc_result_free(r);
  CHECK_VALUE("[(inc x) (count names)]", o, "[42,2]");
  /* A failed run hands back the memory it was given. */
  r = run("(def y 1) (+ 1 \"a\")", o, PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_memory_json(r, NULL), "\"x\":41");
  CHECK(strstr(ptc_result_memory_json(r, NULL), "\"y\"") == NULL);
  CHECK_STR(ptc_result_value_json(r, NULL), "null");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_memory_json(o, NULL, 0), PTC_OK);
  r = run("x", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "unbound_var");
  CHECK_STR(ptc_result_memory_json(r, NULL), "{}");
  ptc_result_free(r);
  ptc_options_free(o);
}

/* ---------------------------------------------------------------- errors */

static void expect_error(const char* source, const ptc_options* o, const char* reason,
                         uint32_t line, uint32_t column, const char* message_part) {
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_run(source, PTC_NTS, o, &r), PTC_PROGRAM_ERROR);
  /* The status's message is the error's text. */
  CHECK_CONTAINS(ptc_last_error(), reason);
  CHECK(ptc_result_ok(r) == 0);
  CHECK_STR(ptc_result_error_reason(r), reason);
  CHECK(ptc_result_error_line(r) == line);
  CHECK(ptc_result_error_column(r) == column);
  if (ptc_result_error_line(r) != line || ptc_result_error_column(r) != column)
    fprintf(stderr, "  %s: at %u:%u\n", source, ptc_result_error_line(r),
            ptc_result_error_column(r));
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), message_part);
  CHECK_CONTAINS(ptc_result_error_text(r, NULL), reason);
  ptc_result_free(r);
}

static void test_errors(void) {
  g_test = "errors";
  expect_error("(+ 1", NULL, "parse_error", 1, 1, "unclosed (");
  expect_error("(let [a 1]\n  (+ a \"x\"))", NULL, "type_error", 2, 3, "expected a number");
  expect_error("\n\n   foo", NULL, "unbound_var", 3, 4, "foo");
  expect_error("(/ 1 0)", NULL, "arithmetic_error", 1, 1, "division by zero");
  expect_error("(let [f (fn [a] a)]\n (f 1 2))", NULL, "arity_error", 2, 2, "");
  expect_error("(tool/nope {})", NULL, "unknown_tool", 1, 1, "nope");
  expect_error("(loop [i 0] (if (< i 5000) (recur (inc i)) i))", NULL, "loop_limit_exceeded", 1, 28,
               "1000");
  expect_error("(fail {:reason \"x\"})", NULL, "fail", 1, 1, "");

  ptc_result* r = run("(let [a 1]\n  (+ a \"x\"))", NULL, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_printed(r, NULL), "");
  CHECK_CONTAINS(ptc_result_error_hint(r, NULL), "parse-long");
  CHECK_CONTAINS(ptc_result_json(r, NULL),
                 "\"error\":{\"reason\":\"type_error\",\"message\":\"+: expected a number");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"line\":2,\"column\":3,\"text\":\"type_error at 2:3");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"ok\":false,\"value\":null");
  ptc_result_free(r);

  r = run("(fail {:reason \"x\" :n 1})", NULL, PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"fail_value\":{\"reason\":\"x\",\"n\":1}");
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"hint\":null");
  ptc_result_free(r);
}

/* ---------------------------------------------------------------- tools */

typedef struct {
  pthread_mutex_t mutex;
  pthread_t threads[64];
  int thread_count;
  atomic_int calls;
  atomic_int freed;
  long sleep_ms;
} tool_state;

static void tool_state_init(tool_state* s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mutex, NULL);
}

static void note_thread(tool_state* s) {
  pthread_mutex_lock(&s->mutex);
  pthread_t self = pthread_self();
  int known = 0;
  for (int i = 0; i < s->thread_count; ++i)
    if (pthread_equal(s->threads[i], self)) known = 1;
  if (!known && s->thread_count < 64) s->threads[s->thread_count++] = self;
  pthread_mutex_unlock(&s->mutex);
}

/* get-user: {"id": n} -> {"name": ..., "id": n}; id 0 is an error. */
static void get_user(void* user, const char* name, const char* args_json, size_t args_len,
                     ptc_tool_reply* reply) {
  tool_state* s = user;
  atomic_fetch_add(&s->calls, 1);
  note_thread(s);
  if (s->sleep_ms) sleep_ms(s->sleep_ms);
  if (strcmp(name, "get-user") != 0 || strlen(args_json) != args_len) {
    ptc_tool_reply_set_error(reply, "wrong name or length", PTC_NTS);
    return;
  }
  const char* id = strstr(args_json, "\"id\":");
  if (!id) {
    ptc_tool_reply_set_error(reply, "get-user needs an id", PTC_NTS);
    return;
  }
  long n = strtol(id + 5, NULL, 10);
  if (n == 0) {
    ptc_tool_reply_set_error(reply, "no user 0", PTC_NTS);
    return;
  }
  char json[128];
  snprintf(json, sizeof json, "{\"name\": \"user-%ld\", \"id\": %ld}", n, n);
  ptc_tool_reply_set_result_json(reply, json, strlen(json));
}

static void echo_args(void* user, const char* name, const char* args_json, size_t args_len,
                      ptc_tool_reply* reply) {
  (void)user;
  (void)name;
  ptc_tool_reply_set_result_json(reply, args_json, args_len);
}

static void bad_json(void* user, const char* name, const char* args_json, size_t args_len,
                     ptc_tool_reply* reply) {
  (void)user;
  (void)name;
  (void)args_json;
  (void)args_len;
  ptc_status s = ptc_tool_reply_set_result_json(reply, "{\"a\": ", PTC_NTS);
  if (s != PTC_INVALID_ARGUMENT) ptc_tool_reply_set_error(reply, "expected invalid_argument", 26);
}

static void silent(void* user, const char* name, const char* args_json, size_t args_len,
                   ptc_tool_reply* reply) {
  (void)user;
  (void)name;
  (void)args_json;
  (void)args_len;
  (void)reply;
}

static void count_free(void* user) {
  atomic_fetch_add(&((tool_state*)user)->freed, 1);
}

static void test_tools(void) {
  g_test = "tools";
  tool_state state;
  tool_state_init(&state);
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_add_tool(o, "get-user", get_user, &state, count_free, 0), PTC_OK);
  CHECK_STATUS(ptc_options_add_tool(o, "echo", echo_args, NULL, NULL, 1), PTC_OK);
  CHECK_STATUS(ptc_options_add_tool(o, "bad-json", bad_json, NULL, NULL, 0), PTC_OK);
  CHECK_STATUS(ptc_options_add_tool(o, "silent", silent, NULL, NULL, 0), PTC_OK);

  ptc_result* r = run("(:name (tool/get-user {:id 7}))", o, PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "\"user-7\"");
  CHECK_PREFIX(
      ptc_result_tool_calls_json(r, NULL),
      "[{\"name\":\"get-user\",\"args\":{\"id\":7},\"args_truncated\":false,"
      "\"result\":{\"name\":\"user-7\",\"id\":7},\"result_truncated\":false,\"error\":null,"
      "\"duration_ms\":");
  ptc_result_free(r);

  /* Keyword keys and values reach the tool as strings. */
  CHECK_VALUE("(tool/echo {:k :v :n [1 2.5 nil] :s #{\"x\"}})", o,
              "{\"k\":\"v\",\"n\":[1,2.5,null],\"s\":[\"x\"]}");
  /* Cacheable: equal arguments are answered from the run's cache. */
  r = run("[(tool/echo {:a 1}) (tool/echo {\"a\" 1})]", o, PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "[{\"a\":1},{\"a\":1}]");
  CHECK_CONTAINS(ptc_result_tool_calls_json(r, NULL), "\"cached\":true");
  ptc_result_free(r);

  /* An error reply is a tool_error the program ends with. */
  r = run("(do\n  (tool/get-user {:id 0}))", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "tool_error");
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "no user 0");
  CHECK(ptc_result_error_line(r) == 2);
  CHECK_CONTAINS(ptc_result_tool_calls_json(r, NULL), "\"error\":\"no user 0\"");
  ptc_result_free(r);

  /* A malformed JSON answer is a tool error too, naming where. */
  r = run("(tool/bad-json {})", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "tool_error");
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "invalid JSON at line 1, column 7");
  ptc_result_free(r);

  /* No answer: nil. */
  CHECK_VALUE("(tool/silent {})", o, "null");

  /* pmap: the callback runs on several threads at once. */
  state.sleep_ms = 30;
  atomic_store(&state.calls, 0);
  state.thread_count = 0;
  r = run("(pmap #(:id (tool/get-user {:id %})) (range 1 9))", o, PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "[1,2,3,4,5,6,7,8]");
  CHECK(atomic_load(&state.calls) == 8);
  CHECK(state.thread_count >= 2);
  CHECK_CONTAINS(ptc_result_json(r, NULL), "\"pmap_calls\":[{\"kind\":\"pmap\",\"count\":8");
  ptc_result_free(r);
  state.sleep_ms = 0;

  /* max_tool_calls */
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_TOOL_CALLS, 1), PTC_OK);
  r = run("(tool/get-user {:id 1}) (tool/get-user {:id 2})", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "tool_call_limit_exceeded");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_TOOL_CALLS, -1), PTC_OK);

  /* Removing a tool; the user pointer is released with the last copy. */
  CHECK_STATUS(ptc_options_remove_tool(o, "silent"), PTC_OK);
  CHECK_STATUS(ptc_options_remove_tool(o, "silent"), PTC_INVALID_ARGUMENT);
  r = run("(tool/silent {})", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "unknown_tool");
  ptc_result_free(r);
  ptc_session* session = NULL;
  CHECK_STATUS(ptc_session_new(o, 3, &session), PTC_OK);
  ptc_options_free(o);
  CHECK(atomic_load(&state.freed) == 0); /* the session holds a copy */
  r = NULL;
  CHECK_STATUS(ptc_session_eval(session, "(:id (tool/get-user {:id 3}))", PTC_NTS, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "3");
  ptc_result_free(r);
  ptc_session_free(session);
  CHECK(atomic_load(&state.freed) == 1);
  pthread_mutex_destroy(&state.mutex);
}

/* ---------------------------------------------------------------- limits */

static const char* kSpin =
    "(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) "
    "(recur (inc i)))))";

static void test_limits(void) {
  g_test = "limits";
  ptc_options* o = ptc_options_new();
  int64_t v = 0;
  CHECK_STATUS(ptc_options_get_limit(o, PTC_LIMIT_TIMEOUT_MS, &v), PTC_OK);
  CHECK(v == 1000);
  CHECK_STATUS(ptc_options_get_limit(o, PTC_LIMIT_MAX_TOOL_CALLS, &v), PTC_OK);
  CHECK(v == -1);
  for (int i = 0; i < PTC_LIMIT_COUNT; ++i) {
    ptc_limit limit;
    CHECK(ptc_limit_name((ptc_limit)i) != NULL);
    CHECK_STATUS(ptc_limit_from_name(ptc_limit_name((ptc_limit)i), &limit), PTC_OK);
    CHECK(limit == (ptc_limit)i);
    CHECK_STATUS(ptc_options_set_limit(o, limit, 1234), PTC_OK);
    CHECK_STATUS(ptc_options_get_limit(o, limit, &v), PTC_OK);
    CHECK(v == 1234);
  }
  CHECK(ptc_limit_name((ptc_limit)PTC_LIMIT_COUNT) == NULL);
  ptc_limit limit;
  CHECK_STATUS(ptc_limit_from_name("max_heap", &limit), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "unknown limit \"max_heap\"");
  ptc_options_free(o);

  o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_TIMEOUT_MS, 100), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_LOOP_LIMIT, 10000), PTC_OK);
  double t0 = now_ms();
  ptc_result* r = run(kSpin, o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "timeout");
  CHECK(now_ms() - t0 < 3000);
  ptc_result_free(r);
  CHECK_VALUE("(loop [i 0] (if (< i 5000) (recur (inc i)) i))", o, "5000");

  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_HEAP_BYTES, 200000), PTC_OK);
  r = run("(count (vec (range 1000000)))", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "memory_limit");
  ptc_result_free(r);

  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_CALL_DEPTH, 50), PTC_OK);
  r = run("(defn f [n] (if (= n 0) 0 (+ 1 (f (dec n))))) (f 100)", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "call_depth_exceeded");
  ptc_result_free(r);

  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_PROGRAM_BYTES, 10), PTC_OK);
  r = run("(+ 1 2 3 4 5 6)", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "program_too_large");
  ptc_result_free(r);

  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_PROGRAM_BYTES, 1000000), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_PRINT_LENGTH, 5), PTC_OK);
  r = run("(println \"abcdefghij\")", o, PTC_OK);
  CHECK(strlen(ptc_result_print(r, 0, NULL)) < 10);
  ptc_result_free(r);

  /* Out of range: nothing changes. */
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_TIMEOUT_MS, -5), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "timeout_ms");
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_TIMEOUT_MS, 5000000000LL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_MAX_HEAP_BYTES, -1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_limit(o, (ptc_limit)99, 1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_limit(o, (ptc_limit)-1, 1), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "unknown limit -1");
  CHECK(ptc_limit_name((ptc_limit)-1) == NULL);
  CHECK_STATUS(ptc_options_get_limit(o, PTC_LIMIT_TIMEOUT_MS, &v), PTC_OK);
  CHECK(v == 100);
  ptc_options_free(o);
}

/* ---------------------------------------------------------------- cancel */

typedef struct {
  ptc_cancel_token* token;
  long after_ms;
} canceller;

static void* cancel_later(void* arg) {
  canceller* c = arg;
  sleep_ms(c->after_ms);
  ptc_cancel_token_cancel(c->token);
  return NULL;
}

static void test_cancel(void) {
  g_test = "cancel";
  ptc_options* o = ptc_options_new();
  ptc_cancel_token* token = ptc_cancel_token_new();
  CHECK(ptc_cancel_token_is_cancelled(token) == 0);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_TIMEOUT_MS, 20000), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_LOOP_LIMIT, 10000), PTC_OK);
  CHECK_STATUS(ptc_options_set_cancel_token(o, token), PTC_OK);
  canceller c = {token, 50};
  pthread_t thread;
  pthread_create(&thread, NULL, cancel_later, &c);
  double t0 = now_ms();
  ptc_result* r = run(kSpin, o, PTC_PROGRAM_ERROR);
  double elapsed = now_ms() - t0;
  pthread_join(thread, NULL);
  CHECK_STR(ptc_result_error_reason(r), "cancelled");
  CHECK(elapsed >= 40 && elapsed < 5000);
  CHECK(ptc_cancel_token_is_cancelled(token) == 1);
  ptc_result_free(r);
  /* The options keep the token alive; a cancelled token stops the next run. */
  ptc_cancel_token_free(token);
  r = run(kSpin, o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "cancelled");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_cancel_token(o, NULL), PTC_OK);
  CHECK_VALUE("(+ 1 2)", o, "3");
  ptc_options_free(o);
}

/* ---------------------------------------------------------------- sessions */

static char* eval_value(ptc_session* s, const char* source, ptc_status expected) {
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_session_eval(s, source, PTC_NTS, &r), expected);
  const char* json =
      r ? (ptc_result_ok(r) ? ptc_result_value_json(r, NULL) : ptc_result_error_reason(r))
        : "(NULL)";
  char* copy = strdup(json);
  ptc_result_free(r);
  return copy;
}

#define CHECK_EVAL(session, source, expected_status, expected) \
  do {                                                         \
    char* v_ = eval_value(session, source, expected_status);   \
    CHECK_STR(v_, expected);                                   \
    free(v_);                                                  \
  } while (0)

static void test_session(void) {
  g_test = "session";
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_memory_json(o, "{\"base\": 100}", PTC_NTS), PTC_OK);
  ptc_session* s = NULL;
  CHECK_STATUS(ptc_session_new(o, 3, &s), PTC_OK);
  ptc_options_free(o);
  CHECK_EVAL(s, "(def x 1)", PTC_OK, "\"#'x\"");
  CHECK_EVAL(s, "(defn add-base [n] (+ n base))", PTC_OK, "\"#'add-base\"");
  CHECK_EVAL(s, "(add-base x)", PTC_OK, "101");
  CHECK_EVAL(s, "(* *1 10)", PTC_OK, "1010");
  /* A failed eval changes neither memory nor history. */
  CHECK_EVAL(s, "(def z 1) (+ 1 \"a\")", PTC_PROGRAM_ERROR, "type_error");
  CHECK_EVAL(s, "[*1 *2]", PTC_OK, "[1010,101]");
  const char* memory = ptc_session_memory_json(s, NULL);
  CHECK_CONTAINS(memory, "\"base\":100");
  CHECK_CONTAINS(memory, "\"x\":1");
  CHECK_CONTAINS(memory, "\"add-base\":\"#fn[");
  CHECK(strstr(memory, "\"z\"") == NULL);
  CHECK_STATUS(ptc_session_reset(s), PTC_OK);
  CHECK_STR(ptc_session_memory_json(s, NULL), "{}");
  CHECK_EVAL(s, "x", PTC_PROGRAM_ERROR, "unbound_var");
  CHECK_EVAL(s, "*1", PTC_OK, "null");
  ptc_session_free(s);

  /* A session with the defaults and no history. */
  CHECK_STATUS(ptc_session_new(NULL, 0, &s), PTC_OK);
  CHECK_EVAL(s, "(def a 2) a", PTC_OK, "2");
  CHECK_EVAL(s, "[a *1]", PTC_OK, "[2,null]");
  ptc_session_free(s);
}

/* ---------------------------------------------------------------- shared handles */

typedef struct {
  const ptc_program* program;
  ptc_options* options;
  const char* source;
  const char* expected;
  int runs;
  int failures;
} worker;

static void* run_worker(void* arg) {
  worker* w = arg;
  for (int i = 0; i < w->runs; ++i) {
    ptc_result* r = NULL;
    ptc_status status = w->program ? ptc_program_run(w->program, w->options, &r)
                                   : ptc_run(w->source, PTC_NTS, w->options, &r);
    const char* json = status == PTC_OK ? ptc_result_value_json(r, NULL) : NULL;
    if (!json || strcmp(json, w->expected) != 0) ++w->failures;
    ptc_result_free(r);
  }
  return NULL;
}

static void test_compiled_program(void) {
  g_test = "compiled program";
  ptc_options* o = ptc_options_new();
  ptc_program* program = NULL;
  ptc_result* error = NULL;
  CHECK_STATUS(ptc_compile("(+ data/a 1)", PTC_NTS, o, &program, &error), PTC_OK);
  CHECK(program != NULL && error == NULL);
  size_t len = 0;
  CHECK_STR(ptc_program_source(program, &len), "(+ data/a 1)");
  CHECK(len == 12);
  for (int a = 1; a <= 3; ++a) {
    char context[32], expected[8];
    snprintf(context, sizeof context, "{\"a\": %d}", a);
    snprintf(expected, sizeof expected, "%d", a + 1);
    CHECK_STATUS(ptc_options_set_context_json(o, context, PTC_NTS), PTC_OK);
    ptc_result* r = NULL;
    CHECK_STATUS(ptc_program_run(program, o, &r), PTC_OK);
    CHECK_STR(ptc_result_value_json(r, NULL), expected);
    ptc_result_free(r);
  }
  /* One program, four threads at once. */
  worker workers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) {
    worker w = {program, o, NULL, "4", 50, 0};
    workers[i] = w;
    pthread_create(&threads[i], NULL, run_worker, &workers[i]);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(workers[i].failures == 0);
  }
  ptc_program_free(program);

  /* A compile error comes back as a failed result. */
  program = NULL;
  CHECK_STATUS(ptc_compile("(let [x 1]\n  (foo x))", PTC_NTS, o, &program, &error),
               PTC_PROGRAM_ERROR);
  CHECK(program == NULL && error != NULL);
  CHECK_STR(ptc_result_error_reason(error), "unbound_var");
  CHECK(ptc_result_error_line(error) == 2);
  CHECK(ptc_result_error_column(error) == 4);
  CHECK_CONTAINS(ptc_last_error(), "unbound_var at 2:4");
  ptc_result_free(error);
  CHECK_STATUS(ptc_compile("(+ 1", PTC_NTS, o, &program, NULL), PTC_PROGRAM_ERROR);
  CHECK(program == NULL);
  ptc_options_free(o);
}

static void test_prepared_context(void) {
  g_test = "prepared context";
  char json[2048] = "{\"xs\": [";
  for (int i = 1; i <= 100; ++i) {
    char n[8];
    snprintf(n, sizeof n, i == 1 ? "%d" : ",%d", i);
    strcat(json, n);
  }
  strcat(json, "], \"name\": \"shared\"}");
  ptc_prepared_context* context = NULL;
  CHECK_STATUS(ptc_prepare_context(json, PTC_NTS, 0, &context), PTC_OK);
  CHECK(ptc_prepared_context_bytes(context) > 0);
  worker workers[4];
  pthread_t threads[4];
  ptc_options* options[4];
  for (int i = 0; i < 4; ++i) {
    options[i] = ptc_options_new();
    CHECK_STATUS(ptc_options_set_prepared_context(options[i], context), PTC_OK);
  }
  /* The options keep the context alive. */
  ptc_prepared_context_free(context);
  for (int i = 0; i < 4; ++i) {
    worker w = {NULL, options[i], "[(reduce + data/xs) data/name]", "[5050,\"shared\"]", 50, 0};
    workers[i] = w;
    pthread_create(&threads[i], NULL, run_worker, &workers[i]);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(workers[i].failures == 0);
    ptc_options_free(options[i]);
  }

  CHECK_STATUS(ptc_prepare_context("[1, 2]", PTC_NTS, 0, &context), PTC_INVALID_ARGUMENT);
  CHECK(context == NULL);
  CHECK_STATUS(ptc_prepare_context("{\"a\": tru}", PTC_NTS, 0, &context), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "line 1, column");
  CHECK_STATUS(ptc_prepare_context("{\"a\": \"0123456789\"}", PTC_NTS, 8, &context),
               PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_prepare_context(NULL, 0, 0, &context), PTC_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- executions */

/* Options deferring `name`, under which a pmap starts up to 8 branches at
 * once whatever the machine's default window (2 x cores), so that tests of
 * up to 8 branches find every call pending together. */
static ptc_options* deferring(const char* name) {
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_defer_tool(o, name, PTC_NTS), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_PMAP_MAX_CONCURRENCY, 8), PTC_OK);
  return o;
}

static ptc_execution* start(const char* source, const ptc_options* options) {
  ptc_execution* e = NULL;
  CHECK_STATUS(ptc_start(source, PTC_NTS, options, &e), PTC_OK);
  CHECK(e != NULL);
  return e;
}

/* The outcome of a finished execution: its value's JSON, or its error's
 * reason (a copy to free). */
static char* outcome_of(const ptc_execution* e) {
  ptc_result* r = NULL;
  ptc_status status = ptc_execution_result(e, &r);
  const char* text = status == PTC_OK              ? ptc_result_value_json(r, NULL)
                     : status == PTC_PROGRAM_ERROR ? ptc_result_error_reason(r)
                                                   : "(no result)";
  char* copy = strdup(text ? text : "(NULL)");
  ptc_result_free(r);
  return copy;
}

#define CHECK_PENDING(execution, expected) \
  CHECK_STR(ptc_execution_pending_json(execution, NULL), expected)

#define CHECK_OUTCOME(execution, expected) \
  do {                                     \
    char* o_ = outcome_of(execution);      \
    CHECK_STR(o_, expected);               \
    free(o_);                              \
  } while (0)

static void test_execution_start_and_resume(void) {
  g_test = "execution start and resume";
  tool_state state;
  tool_state_init(&state);
  ptc_options* o = deferring("get-user");
  CHECK_STATUS(ptc_options_add_tool(o, "echo", echo_args, &state, count_free, 0), PTC_OK);
  ptc_execution* e = start(
      "(def seen (tool/get-user {:id 7 :opts {:deep-key true}}))\n"
      "(println \"got\" (:name seen))\n"
      "(str (:name seen) (:x (tool/echo {:x \"!\"})))",
      o);
  /* The execution copied the options: the tool callback stays until it goes. */
  ptc_options_free(o);
  CHECK(atomic_load(&state.freed) == 0);
  CHECK(ptc_execution_done(e) == 0);
  size_t len = 0;
  const char* pending = ptc_execution_pending_json(e, &len);
  CHECK_STR(
      pending,
      "[{\"id\":\"c0\",\"tool\":\"get-user\",\"args\":{\"id\":7,\"opts\":{\"deep-key\":true}}}]");
  CHECK(pending && len == strlen(pending));
  /* No outcome yet. */
  ptc_result* r = (ptc_result*)1;
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_CONTAINS(ptc_last_error(), "suspended");
  CHECK(ptc_execution_heap_bytes(e) > 0);

  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": {\"name\": \"Ada\"}}}", PTC_NTS), PTC_OK);
  CHECK(ptc_execution_done(e) == 1);
  CHECK_PENDING(e, "[]");
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "\"Ada!\"");
  CHECK(ptc_result_prints_count(r) == 1);
  CHECK_STR(ptc_result_print(r, 0, NULL), "got Ada");
  CHECK_CONTAINS(ptc_result_memory_json(r, NULL), "\"seen\":{\"name\":\"Ada\"}");
  CHECK_PREFIX(ptc_result_tool_calls_json(r, NULL),
               "[{\"name\":\"get-user\",\"args\":{\"id\":7,\"opts\":{\"deep-key\":true}},"
               "\"args_truncated\":false,\"result\":{\"name\":\"Ada\"}");
  CHECK_CONTAINS(ptc_result_tool_calls_json(r, NULL), "{\"name\":\"echo\",\"args\":{\"x\":\"!\"}");
  ptc_result_free(r);
  /* Done: nothing more to resume, dump or cancel. */
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "the execution is done");
  char* bytes = (char*)1;
  CHECK_STATUS(ptc_execution_dump(e, NULL, 0, &bytes, &len), PTC_INVALID_ARGUMENT);
  CHECK(bytes == NULL && len == 0);
  CHECK_STATUS(ptc_execution_cancel(e), PTC_OK);
  CHECK_OUTCOME(e, "\"Ada!\"");
  ptc_execution_free(e);
  CHECK(atomic_load(&state.freed) == 1);

  /* Nothing deferred: a run. A program that does not compile: a finished
   * execution with the error ptc_run reports. */
  e = start("(+ 1 2)", NULL);
  CHECK(ptc_execution_done(e) == 1);
  CHECK_OUTCOME(e, "3");
  ptc_execution_free(e);
  e = start("(+ 1", NULL);
  CHECK(ptc_execution_done(e) == 1);
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "parse_error");
  CHECK_CONTAINS(ptc_last_error(), "parse_error at 1:1");
  ptc_result_free(r);
  ptc_execution_free(e);
  pthread_mutex_destroy(&state.mutex);
}

static void test_execution_deferring(void) {
  g_test = "execution deferring";
  /* "*" defers every tool the program calls that the options do not give. */
  ptc_options* o = deferring("*");
  CHECK_STATUS(ptc_options_add_tool(o, "echo", echo_args, NULL, NULL, 0), PTC_OK);
  ptc_execution* e = start("[(tool/echo {:a 1}) (tool/anything {:x 1})]", o);
  CHECK_PENDING(e, "[{\"id\":\"c1\",\"tool\":\"anything\",\"args\":{\"x\":1}}]");
  CHECK_STATUS(ptc_resume(e, "{\"c1\": {\"value\": [2, 3]}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(e, "[{\"a\":1},[2,3]]");
  ptc_execution_free(e);
  ptc_options_free(o);

  /* A name deferred twice is deferred once; a name with a callback too is
   * deferred. ptc_run cannot wait: args_error. */
  o = deferring("echo");
  CHECK_STATUS(ptc_options_defer_tool(o, "echo", 4), PTC_OK);
  CHECK_STATUS(ptc_options_add_tool(o, "echo", echo_args, NULL, NULL, 0), PTC_OK);
  e = start("(tool/echo {:a 1})", o);
  CHECK_PENDING(e, "[{\"id\":\"c0\",\"tool\":\"echo\",\"args\":{\"a\":1}}]");
  ptc_execution_free(e);
  ptc_result* r = run("(tool/echo {:a 1})", o, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "args_error");
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "deferred");
  ptc_result_free(r);
  ptc_options_free(o);

  /* A cacheable deferred tool: a call equal to an answered one never waits. */
  o = ptc_options_new();
  CHECK_STATUS(ptc_options_add_deferred_tool(o, "f", 1), PTC_OK);
  e = start("[(tool/f {:a 1}) (tool/f {:a 1}) (tool/f {:a 2})]", o);
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": 10}}", PTC_NTS), PTC_OK);
  CHECK_PENDING(e, "[{\"id\":\"c2\",\"tool\":\"f\",\"args\":{\"a\":2}}]");
  CHECK_STATUS(ptc_resume(e, "{\"c2\": {\"value\": 20}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(e, "[10,10,20]");
  ptc_execution_free(e);
  /* ... and a tool like any other: removed, it is unknown. */
  CHECK_STATUS(ptc_options_remove_tool(o, "f"), PTC_OK);
  e = start("(tool/f {})", o);
  CHECK_OUTCOME(e, "unknown_tool");
  ptc_execution_free(e);
  ptc_options_free(o);

  /* A compiled program. */
  o = deferring("base");
  ptc_program* program = NULL;
  CHECK_STATUS(ptc_compile("(+ (tool/base {}) data/a)", PTC_NTS, o, &program, NULL), PTC_OK);
  CHECK_STATUS(ptc_options_set_context_json(o, "{\"a\": 5}", PTC_NTS), PTC_OK);
  e = NULL;
  CHECK_STATUS(ptc_start_compiled(program, o, &e), PTC_OK);
  ptc_program_free(program); /* the execution keeps it */
  ptc_options_free(o);
  CHECK_PENDING(e, "[{\"id\":\"c0\",\"tool\":\"base\",\"args\":{}}]");
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": 100}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(e, "105");
  ptc_execution_free(e);
}

static void test_execution_pmap(void) {
  g_test = "execution pmap";
  ptc_options* o = deferring("get-user");
  ptc_execution* e = start("(pmap #(:name (tool/get-user {:id %})) [1 2 3 4])", o);
  /* Suspended once, with every branch's call pending. */
  CHECK_PENDING(e,
                "[{\"id\":\"p0.0/c0\",\"tool\":\"get-user\",\"args\":{\"id\":1}},"
                "{\"id\":\"p0.1/c0\",\"tool\":\"get-user\",\"args\":{\"id\":2}},"
                "{\"id\":\"p0.2/c0\",\"tool\":\"get-user\",\"args\":{\"id\":3}},"
                "{\"id\":\"p0.3/c0\",\"tool\":\"get-user\",\"args\":{\"id\":4}}]");
  /* Part of them, in any order: the rest stay pending. */
  CHECK_STATUS(ptc_resume(e,
                          "{\"p0.2/c0\": {\"value\": {\"name\": \"c\"}},"
                          " \"p0.0/c0\": {\"value\": {\"name\": \"a\"}}}",
                          PTC_NTS),
               PTC_OK);
  CHECK(ptc_execution_done(e) == 0);
  CHECK_PENDING(e,
                "[{\"id\":\"p0.1/c0\",\"tool\":\"get-user\",\"args\":{\"id\":2}},"
                "{\"id\":\"p0.3/c0\",\"tool\":\"get-user\",\"args\":{\"id\":4}}]");
  CHECK_STATUS(ptc_resume(e, "{\"p0.3/c0\": {\"value\": {\"name\": \"d\"}}}", PTC_NTS), PTC_OK);
  CHECK_PENDING(e, "[{\"id\":\"p0.1/c0\",\"tool\":\"get-user\",\"args\":{\"id\":2}}]");
  CHECK_STATUS(ptc_resume(e, "{\"p0.1/c0\": {\"value\": {\"name\": \"b\"}}}", PTC_NTS), PTC_OK);
  CHECK(ptc_execution_done(e) == 1);
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "[\"a\",\"b\",\"c\",\"d\"]");
  CHECK_CONTAINS(ptc_result_json(r, NULL),
                 "\"pmap_calls\":[{\"kind\":\"pmap\",\"count\":4,\"success_count\":4");
  ptc_result_free(r);
  ptc_execution_free(e);
  ptc_options_free(o);
}

static void test_execution_error_answers(void) {
  g_test = "execution error answers";
  ptc_options* o = deferring("get-user");
  ptc_execution* e = start("(do\n  (tool/get-user {:id 3})\n  :never)", o);
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"error\": \"no user 3\"}}", PTC_NTS), PTC_OK);
  CHECK(ptc_execution_done(e) == 1);
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "tool_error");
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "no user 3");
  CHECK(ptc_result_error_line(r) == 2);
  CHECK_CONTAINS(ptc_result_tool_calls_json(r, NULL), "\"error\":\"no user 3\"");
  ptc_result_free(r);
  ptc_execution_free(e);

  /* One branch's error fails the pmap, whatever the others answered. */
  e = start("(pmap #(tool/get-user {:id %}) [1 2])", o);
  CHECK_STATUS(
      ptc_resume(e, "{\"p0.0/c0\": {\"value\": 1}, \"p0.1/c0\": {\"error\": \"down\"}}", PTC_NTS),
      PTC_OK);
  CHECK_OUTCOME(e, "tool_error");
  ptc_execution_free(e);
  ptc_options_free(o);
}

static void test_execution_bad_resumes(void) {
  g_test = "execution bad resumes";
  ptc_options* o = deferring("f");
  ptc_execution* e = start("(pmap #(tool/f {:i %}) [1 2])", o);
  char* before = strdup(ptc_execution_pending_json(e, NULL));
  CHECK_STR(before,
            "[{\"id\":\"p0.0/c0\",\"tool\":\"f\",\"args\":{\"i\":1}},"
            "{\"id\":\"p0.1/c0\",\"tool\":\"f\",\"args\":{\"i\":2}}]");

  CHECK_STATUS(ptc_resume(e, "{\"c9\": {\"value\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "no pending call has the id \"c9\"");
  CHECK_CONTAINS(ptc_last_error(), "p0.0/c0, p0.1/c0"); /* the hint lists what is pending */
  /* One unknown id among good ones: nothing is taken. */
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"value\": 1}, \"nope\": {\"value\": 2}}", PTC_NTS),
               PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "\"nope\"");
  CHECK_STATUS(ptc_resume(e, "{}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "at least one answer");
  /* Malformed JSON, with where. */
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"value\": }}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "answers: invalid JSON at line 1, column 23");
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\":\n {\"value\": [1,]}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "line 2");
  /* JSON of the wrong shape. */
  CHECK_STATUS(ptc_resume(e, "[1]", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "answers must be a JSON object, got an array");
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": 5}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "the answer to \"p0.0/c0\" must be an object");
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"value\": 1, \"error\": \"x\"}}", PTC_NTS),
               PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "exactly one key");
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"result\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"error\": 5}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "must be a string (the message), got a number");
  CHECK_STATUS(ptc_resume(e, NULL, 3), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_resume(NULL, "{\"p0.0/c0\": {\"value\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "execution must not be NULL");
  /* None of it changed anything. */
  CHECK(ptc_execution_done(e) == 0);
  CHECK_PENDING(e, before);

  /* The length is honoured. */
  const char* answer = "{\"p0.0/c0\": {\"value\": 10}}garbage";
  CHECK_STATUS(ptc_resume(e, answer, strlen(answer) - 7), PTC_OK);
  CHECK_PENDING(e, "[{\"id\":\"p0.1/c0\",\"tool\":\"f\",\"args\":{\"i\":2}}]");
  /* Answered twice. */
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"value\": 10}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "call p0.0/c0 was answered before");
  CHECK_CONTAINS(ptc_last_error(), "p0.1/c0");
  CHECK_PENDING(e, "[{\"id\":\"p0.1/c0\",\"tool\":\"f\",\"args\":{\"i\":2}}]");
  CHECK_STATUS(ptc_resume(e, "{\"p0.1/c0\": {\"value\": 20}}", PTC_NTS), PTC_OK);
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "[10,20]");
  /* The refused answers left no trace in the ledger. */
  CHECK_CONTAINS(ptc_result_tool_calls_json(r, NULL), "\"result\":10,");
  CHECK(strstr(ptc_result_tool_calls_json(r, NULL), "\"result\":1,") == NULL);
  ptc_result_free(r);
  free(before);
  ptc_execution_free(e);
  ptc_options_free(o);
}

static const char* kGreetProgram =
    "(defn greet [u] (str greeting \" \" (:name u)))\n"
    "(println data/label)\n"
    "(mapv #(greet (tool/get-user {:id %})) data/ids)";

/* An execution of kGreetProgram that has had its first answer. */
static ptc_execution* greeting_after_first_answer(void) {
  ptc_options* o = deferring("get-user");
  CHECK_STATUS(ptc_options_set_context_json(o, "{\"ids\": [1, 2], \"label\": \"users\"}", PTC_NTS),
               PTC_OK);
  CHECK_STATUS(ptc_options_set_memory_json(o, "{\"greeting\": \"hi\"}", PTC_NTS), PTC_OK);
  ptc_execution* e = start(kGreetProgram, o);
  ptc_options_free(o);
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": {\"name\": \"Ada\"}}}", PTC_NTS), PTC_OK);
  return e;
}

static void test_execution_dump_and_load(void) {
  g_test = "execution dump and load";
  ptc_execution* e = greeting_after_first_answer();
  char* bytes = NULL;
  size_t len = 0;
  CHECK_STATUS(ptc_execution_dump(e, NULL, 0, &bytes, &len), PTC_OK);
  CHECK(bytes != NULL && len > 0);
  /* Loaded with no options at all: the tool it knows is deferred. */
  ptc_execution* loaded = NULL;
  CHECK_STATUS(ptc_load(bytes, len, NULL, NULL, 0, &loaded), PTC_OK);
  CHECK(loaded != NULL);
  CHECK_PENDING(loaded, "[{\"id\":\"c1\",\"tool\":\"get-user\",\"args\":{\"id\":2}}]");
  /* Both go on the same way: the dump left the original as it was. */
  const char* answer = "{\"c1\": {\"value\": {\"name\": \"Bob\"}}}";
  CHECK_STATUS(ptc_resume(loaded, answer, PTC_NTS), PTC_OK);
  CHECK_STATUS(ptc_resume(e, answer, PTC_NTS), PTC_OK);
  ptc_result* a = NULL;
  ptc_result* b = NULL;
  CHECK_STATUS(ptc_execution_result(e, &a), PTC_OK);
  CHECK_STATUS(ptc_execution_result(loaded, &b), PTC_OK);
  CHECK_STR(ptc_result_value_json(b, NULL), "[\"hi Ada\",\"hi Bob\"]");
  CHECK_STR(ptc_result_value_json(b, NULL), ptc_result_value_json(a, NULL));
  CHECK_STR(ptc_result_memory_json(b, NULL), ptc_result_memory_json(a, NULL));
  CHECK(ptc_result_prints_count(b) == 1);
  CHECK_STR(ptc_result_print(b, 0, NULL), "users");
  /* The loaded ledger is the whole run's. */
  CHECK_CONTAINS(ptc_result_tool_calls_json(b, NULL), "\"result\":{\"name\":\"Ada\"}");
  CHECK_CONTAINS(ptc_result_tool_calls_json(b, NULL), "\"result\":{\"name\":\"Bob\"}");
  ptc_result_free(a);
  ptc_result_free(b);
  ptc_execution_free(loaded);
  ptc_execution_free(e);

  /* Damaged bytes are refused as snapshot errors. */
  CHECK_STATUS(ptc_load(bytes, len / 2, NULL, NULL, 0, &loaded), PTC_INVALID_ARGUMENT);
  CHECK(loaded == NULL);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  CHECK_STATUS(ptc_load("not a snapshot at all", PTC_NTS, NULL, NULL, 0, &loaded),
               PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "length");
  CHECK_STATUS(ptc_load("not a snapshot at all", 21, NULL, NULL, 0, &loaded), PTC_INVALID_ARGUMENT);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  CHECK_CONTAINS(ptc_last_error(), "not a ptc snapshot");
  CHECK_STATUS(ptc_load(NULL, 0, NULL, NULL, 0, &loaded), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_load(bytes, len, NULL, NULL, 0, NULL), PTC_INVALID_ARGUMENT);
  ptc_bytes_free(bytes);
  ptc_bytes_free(NULL);
}

static void test_execution_signed_snapshots(void) {
  g_test = "execution signed snapshots";
  ptc_execution* e = greeting_after_first_answer();
  char* sealed = NULL;
  char* plain = NULL;
  size_t sealed_len = 0, plain_len = 0;
  /* The key's length is honoured: "secret" of "secret-and-more". */
  CHECK_STATUS(ptc_execution_dump(e, "secret-and-more", 6, &sealed, &sealed_len), PTC_OK);
  CHECK_STATUS(ptc_execution_dump(e, NULL, 0, &plain, &plain_len), PTC_OK);
  ptc_execution_free(e);

  ptc_execution* loaded = NULL;
  CHECK_STATUS(ptc_load(sealed, sealed_len, NULL, "secret", PTC_NTS, &loaded), PTC_OK);
  CHECK_PENDING(loaded, "[{\"id\":\"c1\",\"tool\":\"get-user\",\"args\":{\"id\":2}}]");
  CHECK_STATUS(ptc_resume(loaded, "{\"c1\": {\"value\": {\"name\": \"Bob\"}}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(loaded, "[\"hi Ada\",\"hi Bob\"]");
  ptc_execution_free(loaded);
  /* A wrong key, no key, a key for unsigned bytes, a changed byte. */
  loaded = (ptc_execution*)1;
  CHECK_STATUS(ptc_load(sealed, sealed_len, NULL, "other", PTC_NTS, &loaded), PTC_INVALID_ARGUMENT);
  CHECK(loaded == NULL);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  CHECK_STATUS(ptc_load(sealed, sealed_len, NULL, NULL, 0, &loaded), PTC_INVALID_ARGUMENT);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  CHECK_STATUS(ptc_load(plain, plain_len, NULL, "secret", PTC_NTS, &loaded), PTC_INVALID_ARGUMENT);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  sealed[sealed_len / 2] ^= 1;
  CHECK_STATUS(ptc_load(sealed, sealed_len, NULL, "secret", PTC_NTS, &loaded),
               PTC_INVALID_ARGUMENT);
  CHECK_PREFIX(ptc_last_error(), "snapshot_error: ");
  CHECK(loaded == NULL);
  ptc_bytes_free(sealed);
  ptc_bytes_free(plain);
}

typedef struct {
  ptc_execution* execution;
  const char* answers;
  ptc_status status;
} resumer;

static void* resume_on_thread(void* arg) {
  resumer* r = arg;
  r->status = ptc_resume(r->execution, r->answers, PTC_NTS);
  return NULL;
}

static void test_execution_resumed_from_other_threads(void) {
  g_test = "execution resumed from other threads";
  ptc_options* o = deferring("f");
  /* Each answer from a thread of its own: the execution moves with its host. */
  ptc_execution* e =
      start("(loop [i 0 acc []] (if (< i 4) (recur (inc i) (conj acc (tool/f {:i i}))) acc))", o);
  for (int i = 0; i < 4; ++i) {
    char answers[64];
    snprintf(answers, sizeof answers, "{\"c%d\": {\"value\": %d}}", i, i * 10);
    resumer r = {e, answers, PTC_INTERNAL};
    pthread_t thread;
    pthread_create(&thread, NULL, resume_on_thread, &r);
    pthread_join(thread, NULL);
    CHECK(r.status == PTC_OK);
    CHECK(ptc_execution_done(e) == (i == 3));
  }
  CHECK_OUTCOME(e, "[0,10,20,30]");
  ptc_execution_free(e);

  /* Eight threads answering one execution's eight calls at once: taken one
   * after another, each sees its call still pending. */
  e = start("(pmap #(* 2 (tool/f {:i %})) (range 8))", o);
  char answers[8][64];
  resumer rs[8];
  pthread_t threads[8];
  for (int i = 0; i < 8; ++i) {
    snprintf(answers[i], sizeof answers[i], "{\"p0.%d/c0\": {\"value\": %d}}", i, i);
    resumer r = {e, answers[i], PTC_INTERNAL};
    rs[i] = r;
    pthread_create(&threads[i], NULL, resume_on_thread, &rs[i]);
  }
  for (int i = 0; i < 8; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(rs[i].status == PTC_OK);
  }
  CHECK(ptc_execution_done(e) == 1);
  CHECK_OUTCOME(e, "[0,2,4,6,8,10,12,14]");
  ptc_execution_free(e);
  ptc_options_free(o);
}

static void test_execution_cancel_and_free(void) {
  g_test = "execution cancel and free";
  ptc_options* o = deferring("f");
  ptc_execution* e = start("(pmap #(tool/f {:i %}) [1 2 3])", o);
  CHECK(ptc_execution_done(e) == 0);
  CHECK_STATUS(ptc_execution_cancel(e), PTC_OK);
  CHECK(ptc_execution_done(e) == 1);
  CHECK_PENDING(e, "[]");
  CHECK_OUTCOME(e, "cancelled");
  CHECK_STATUS(ptc_execution_cancel(e), PTC_OK); /* done: nothing happens */
  CHECK_OUTCOME(e, "cancelled");
  CHECK_STATUS(ptc_resume(e, "{\"p0.0/c0\": {\"value\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  ptc_execution_free(e);

  /* The options' cancel token, raised while suspended, ends the execution
   * at the next resume; the execution keeps the token alive. */
  ptc_cancel_token* token = ptc_cancel_token_new();
  CHECK_STATUS(ptc_options_set_cancel_token(o, token), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(o, PTC_LIMIT_TIMEOUT_MS, 20000), PTC_OK);
  e = start("(tool/f {}) (reduce + (range 100000000))", o);
  ptc_cancel_token_cancel(token);
  ptc_cancel_token_free(token);
  ptc_options_free(o);
  double t0 = now_ms();
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": null}}", PTC_NTS), PTC_OK);
  CHECK(now_ms() - t0 < 5000);
  CHECK_OUTCOME(e, "cancelled");
  ptc_execution_free(e);

  /* Freed while suspended, sequential and parallel, with a callback tool
   * beside the deferred one: unwound (ASan checks nothing leaks), and the
   * tool's user pointer released with the last execution. */
  tool_state state;
  tool_state_init(&state);
  o = deferring("f");
  CHECK_STATUS(ptc_options_add_tool(o, "get-user", get_user, &state, count_free, 0), PTC_OK);
  ptc_execution* many[40];
  for (int i = 0; i < 40; ++i)
    many[i] = start(i % 2 ? "(let [u (tool/get-user {:id 1}) x (tool/f {})] [u x])"
                          : "(pmap #(tool/f {:i (:id (tool/get-user {:id %}))}) (range 1 7))",
                    o);
  ptc_options_free(o);
  CHECK(atomic_load(&state.calls) == 20 + 20 * 6);
  for (int i = 0; i < 40; ++i) {
    CHECK(ptc_execution_done(many[i]) == 0);
    CHECK(atomic_load(&state.freed) == 0);
    ptc_execution_free(many[i]);
  }
  CHECK(atomic_load(&state.freed) == 1);
  pthread_mutex_destroy(&state.mutex);
}

/* An approver that approves amounts up to 20 and rejects the rest, and
 * counts what it was asked. */
static void approve_small(void* user, const char* call_json, size_t len, ptc_approval* approval) {
  atomic_int* asked = (atomic_int*)user;
  atomic_fetch_add(asked, 1);
  CHECK(strlen(call_json) == len);
  CHECK_CONTAINS(call_json, "\"kind\":\"approval\"");
  if (strstr(call_json, "\"amount\":5}") != NULL)
    ptc_approval_approve(approval);
  else
    ptc_approval_reject(approval, "too much", PTC_NTS);
}

static void say_nothing(void* user, const char* call_json, size_t len, ptc_approval* approval) {
  (void)user;
  (void)call_json;
  (void)len;
  (void)approval;
}

static void test_execution_approvals(void) {
  g_test = "execution approvals";
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_add_tool(o, "refund", echo_args, NULL, NULL, 0), PTC_OK);
  CHECK_STATUS(ptc_options_require_approval(o, "nope", PTC_NTS, 1), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "there is no tool \"nope\"");
  CHECK_STATUS(ptc_options_require_approval(o, "refund", PTC_NTS, 1), PTC_OK);

  /* Suspends before the tool runs, where the program makes the call. */
  ptc_execution* e = start("(def r\n  (tool/refund {:amount 30}))\n(:amount r)", o);
  CHECK_PENDING(e,
                "[{\"id\":\"c0\",\"tool\":\"refund\",\"args\":{\"amount\":30},"
                "\"kind\":\"approval\",\"line\":2,\"column\":3}]");
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"value\": 1}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "waits for a person's approval");
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"approve\": false}}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "must be true");
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"approve\": true}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(e, "30");
  ptc_execution_free(e);

  e = start("(tool/refund {:amount 30})", o);
  CHECK_STATUS(ptc_resume(e, "{\"c0\": {\"reject\": \"ask a manager\"}}", PTC_NTS), PTC_OK);
  CHECK_OUTCOME(e, "tool_error");
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_execution_result(e, &r), PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "tool/refund was rejected: ask a manager");
  ptc_result_free(r);
  ptc_execution_free(e);

  /* ptc_run: no approver fails closed; an approver decides. */
  CHECK_STATUS(ptc_run("(tool/refund {:amount 5})", PTC_NTS, o, &r), PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "tool/refund was not called");
  ptc_result_free(r);
  atomic_int asked;
  atomic_init(&asked, 0);
  CHECK_STATUS(ptc_options_set_approver(o, approve_small, &asked, NULL), PTC_OK);
  CHECK_STATUS(ptc_run("(:amount (tool/refund {:amount 5}))", PTC_NTS, o, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "5");
  ptc_result_free(r);
  CHECK_STATUS(ptc_run("(tool/refund {:amount 50})", PTC_NTS, o, &r), PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "tool/refund was rejected: too much");
  ptc_result_free(r);
  CHECK(atomic_load(&asked) == 2);
  /* An approver that says nothing rejects. */
  CHECK_STATUS(ptc_options_set_approver(o, say_nothing, NULL, NULL), PTC_OK);
  CHECK_STATUS(ptc_run("(tool/refund {:amount 5})", PTC_NTS, o, &r), PTC_PROGRAM_ERROR);
  CHECK_CONTAINS(ptc_result_error_message(r, NULL), "the approver gave no decision");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_approver(o, NULL, NULL, NULL), PTC_OK);
  CHECK_STATUS(ptc_options_require_approval(o, "refund", PTC_NTS, 0), PTC_OK);
  CHECK_STATUS(ptc_run("(:amount (tool/refund {:amount 50}))", PTC_NTS, o, &r), PTC_OK);
  ptc_result_free(r);
  ptc_options_free(o);
}

static void test_execution_invalid_arguments(void) {
  g_test = "execution invalid arguments";
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_defer_tool(NULL, "f", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_defer_tool(o, NULL, 1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_defer_tool(o, "", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "must not be empty");
  CHECK_STATUS(ptc_options_add_deferred_tool(o, NULL, 0), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_add_deferred_tool(o, "", 0), PTC_INVALID_ARGUMENT);
  /* Nothing was deferred: an unknown tool fails before the program runs. */
  ptc_execution* e = start("(tool/f {})", o);
  CHECK_OUTCOME(e, "unknown_tool");
  ptc_execution_free(e);

  e = (ptc_execution*)1;
  CHECK_STATUS(ptc_start(NULL, 3, o, &e), PTC_INVALID_ARGUMENT);
  CHECK(e == NULL);
  CHECK_STATUS(ptc_start("1", 1, o, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_start_compiled(NULL, o, &e), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "program must not be NULL");
  ptc_result* r = NULL;
  CHECK_STATUS(ptc_execution_result(NULL, &r), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_execution_cancel(NULL), PTC_INVALID_ARGUMENT);
  char* bytes = NULL;
  size_t len = 0;
  CHECK_STATUS(ptc_execution_dump(NULL, NULL, 0, &bytes, &len), PTC_INVALID_ARGUMENT);
  CHECK(ptc_execution_pending_json(NULL, &len) == NULL);
  CHECK(len == 0);
  CHECK(ptc_execution_done(NULL) == 1);
  CHECK(ptc_execution_heap_bytes(NULL) == 0);
  ptc_execution_free(NULL);

  CHECK_STATUS(ptc_options_defer_tool(o, "f", PTC_NTS), PTC_OK);
  e = start("(tool/f {})", o);
  CHECK_STATUS(ptc_execution_dump(e, NULL, 0, NULL, &len), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_execution_dump(e, NULL, 0, &bytes, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_execution_dump(e, NULL, 5, &bytes, &len), PTC_INVALID_ARGUMENT);
  CHECK(bytes == NULL);
  CHECK(ptc_execution_done(e) == 0);
  ptc_execution_free(e);
  ptc_options_free(o);
}

/* ---------------------------------------------------------------- invalid arguments */

static void test_invalid_arguments(void) {
  g_test = "invalid arguments";
  ptc_result* r = (ptc_result*)1;
  CHECK_STATUS(ptc_run(NULL, 5, NULL, &r), PTC_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_CONTAINS(ptc_last_error(), "source must not be NULL");
  CHECK(ptc_last_status() == PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_run("1", 1, NULL, NULL), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "out must not be NULL");
  /* A success clears the last error. */
  CHECK_STATUS(ptc_run("1", 1, NULL, &r), PTC_OK);
  CHECK(ptc_last_status() == PTC_OK);
  CHECK_STR(ptc_last_error(), "");
  ptc_result_free(r);
  /* The length is honoured: "(+ 1 2)garbage" */
  CHECK_STATUS(ptc_run("(+ 1 2)garbage", 7, NULL, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "3");
  ptc_result_free(r);
  /* The empty program is nil. */
  CHECK_STATUS(ptc_run(NULL, 0, NULL, &r), PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "null");
  ptc_result_free(r);

  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_context_json(o, "{\"a\": }", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "context: invalid JSON at line 1, column 7");
  CHECK_STATUS(ptc_options_set_context_json(o, "{\n  \"a\": [1,\n  2,]}", PTC_NTS),
               PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "line 3");
  CHECK_STATUS(ptc_options_set_context_json(o, "[1]", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "context must be a JSON object, got an array");
  CHECK_STATUS(ptc_options_set_memory_json(o, "\"x\"", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "memory must be a JSON object, got a string");
  CHECK_STATUS(ptc_options_set_history_json(o, "{}", PTC_NTS), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "history must be a JSON array");
  CHECK_STATUS(ptc_options_set_context_json(o, "", 0), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_float_precision(o, 18), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_float_precision(o, -2), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_add_tool(o, "t", NULL, NULL, NULL, 0), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_add_tool(o, NULL, silent, NULL, NULL, 0), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_add_tool(o, "", silent, NULL, NULL, 0), PTC_INVALID_ARGUMENT);
  /* Failed setters changed nothing. */
  CHECK_VALUE("[(/ 1.0 4) *1]", o, "[0.25,null]");

  CHECK_STATUS(ptc_options_set_context_json(NULL, "{}", 2), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "options must not be NULL");
  CHECK_STATUS(ptc_options_set_limit(NULL, PTC_LIMIT_TIMEOUT_MS, 1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_get_limit(o, PTC_LIMIT_TIMEOUT_MS, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_signature(NULL, "int"), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_cancel_token(NULL, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_session_new(NULL, 3, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_session_eval(NULL, "1", 1, &r), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_session_reset(NULL), PTC_INVALID_ARGUMENT);
  CHECK(ptc_session_memory_json(NULL, NULL) == NULL);
  CHECK_STATUS(ptc_program_run(NULL, o, &r), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_compile("1", 1, o, NULL, NULL), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_tool_reply_set_result_json(NULL, "1", 1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_tool_reply_set_error(NULL, "x", 1), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_limit_from_name(NULL, NULL), PTC_INVALID_ARGUMENT);
  CHECK(ptc_tool_reply_cancelled(NULL) == 0);
  CHECK(ptc_tool_reply_remaining_ms(NULL) == 0);

  /* Getters and frees accept NULL. */
  size_t len = 99;
  CHECK(ptc_result_value_json(NULL, &len) == NULL);
  CHECK(len == 0);
  CHECK(ptc_last_status() == PTC_INVALID_ARGUMENT);
  CHECK(ptc_result_json(NULL, NULL) == NULL);
  CHECK(ptc_result_printed(NULL, NULL) == NULL);
  CHECK(ptc_result_ok(NULL) == 0);
  CHECK(ptc_result_prints_count(NULL) == 0);
  CHECK(ptc_result_error_reason(NULL) == NULL);
  CHECK(ptc_program_source(NULL, NULL) == NULL);
  CHECK(ptc_prepared_context_bytes(NULL) == 0);
  CHECK(ptc_cancel_token_is_cancelled(NULL) == 0);
  ptc_cancel_token_cancel(NULL);
  ptc_result_free(NULL);
  ptc_options_free(NULL);
  ptc_session_free(NULL);
  ptc_program_free(NULL);
  ptc_prepared_context_free(NULL);
  ptc_cancel_token_free(NULL);
  ptc_options_free(o);
}

/* ---------------------------------------------------------------- worker pools */

/* The ptc-worker of this build (tests/CMakeLists.txt). */
#ifndef PTC_TEST_WORKER
#error "PTC_TEST_WORKER must name the build's ptc-worker"
#endif

static ptc_worker_pool* new_pool(const char* json) {
  ptc_worker_pool* pool = NULL;
  CHECK_STATUS(ptc_worker_pool_new(json, PTC_NTS, &pool), PTC_OK);
  return pool;
}

/* A result's whole JSON without what differs from run to run: "usage" and
 * every "duration_ms". Caller frees. */
static char* stable_json(const ptc_result* r) {
  const char* json = ptc_result_json(r, NULL);
  if (!json) return strdup("(NULL)");
  char* out = malloc(strlen(json) + 1);
  char* o = out;
  for (const char* p = json; *p;) {
    if (strncmp(p, "\"usage\":{", 9) == 0) {
      p = strchr(p, '}') + 1;
      if (*p == ',') ++p;
    } else if (strncmp(p, "\"duration_ms\":", 14) == 0) {
      p += 14;
      while (*p && *p != ',' && *p != '}')
        ++p;
      if (*p == ',') ++p;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

/* `source` gives the same status and result (all but timings) in-process
 * and isolated. */
static void check_same(const char* source, const ptc_options* in_process,
                       const ptc_options* isolated) {
  ptc_result* a = NULL;
  ptc_result* b = NULL;
  ptc_status sa = ptc_run(source, PTC_NTS, in_process, &a);
  ptc_status sb = ptc_run(source, PTC_NTS, isolated, &b);
  ++g_checks;
  if (sa != sb) {
    ++g_failures;
    fprintf(stderr, "%s: %s: status %s in-process, %s isolated (%s)\n", g_test, source,
            ptc_status_name(sa), ptc_status_name(sb), ptc_last_error());
  }
  if (a && b) {
    char* ja = stable_json(a);
    char* jb = stable_json(b);
    ++g_checks;
    if (strcmp(ja, jb) != 0) {
      ++g_failures;
      fprintf(stderr, "%s: %s:\n  in-process %s\n  isolated   %s\n", g_test, source, ja, jb);
    }
    free(ja);
    free(jb);
  }
  ptc_result_free(a);
  ptc_result_free(b);
}

static void test_worker_pool_options(void) {
  g_test = "worker pool options";
  ptc_worker_pool* pool = (ptc_worker_pool*)&g_checks; /* cleared on failure */
  CHECK_STATUS(ptc_worker_pool_new("{\"workers\": ", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK(pool == NULL);
  CHECK_CONTAINS(ptc_last_error(), "line 1, column");
  CHECK_STATUS(ptc_worker_pool_new("[1]", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_worker_pool_new("{\"threads\": 2}", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "unknown key \"threads\"");
  CHECK_STATUS(ptc_worker_pool_new("{\"workers\": -1}", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "\"workers\" must be a whole number");
  CHECK_STATUS(ptc_worker_pool_new("{\"workers\": 1.5}", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_worker_pool_new("{\"namespaces\": 1}", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "\"namespaces\" must be true or false");
  CHECK_STATUS(ptc_worker_pool_new("{\"cpu_handoff\": \"no\"}", PTC_NTS, &pool),
               PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "\"cpu_handoff\" must be true or false");
  CHECK_STATUS(ptc_worker_pool_new("{\"worker_path\": 7}", PTC_NTS, &pool), PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_worker_pool_new("{\"worker_path\": \"\"}", PTC_NTS, &pool),
               PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_worker_pool_new(NULL, 0, NULL), PTC_INVALID_ARGUMENT);
  CHECK(ptc_worker_pool_stats_json(NULL, NULL) == NULL);
  CHECK(ptc_last_status() == PTC_INVALID_ARGUMENT);
  CHECK_STATUS(ptc_options_set_isolate(NULL, NULL), PTC_INVALID_ARGUMENT);
  ptc_worker_pool_free(NULL);

  /* No ptc-worker: an error status and message, never a crash. */
  CHECK_STATUS(
      ptc_worker_pool_new("{\"worker_path\": \"/nonexistent/ptc-worker\"}", PTC_NTS, &pool),
      PTC_UNAVAILABLE);
  CHECK(pool == NULL);
  CHECK_CONTAINS(ptc_last_error(), "/nonexistent/ptc-worker could not be started");
  CHECK_STR(ptc_status_name(PTC_UNAVAILABLE), "unavailable");
  /* The default place: beside this test executable (build/tests/), where
   * there is none. */
  char* saved = getenv("PTC_WORKER") ? strdup(getenv("PTC_WORKER")) : NULL;
  unsetenv("PTC_WORKER");
  CHECK_STATUS(ptc_worker_pool_new(NULL, 0, &pool), PTC_UNAVAILABLE);
  CHECK(pool == NULL);
  CHECK_CONTAINS(ptc_last_error(),
                 "ptc-worker, the worker executable of isolated runs, was not "
                 "found");
  CHECK_CONTAINS(ptc_last_error(), "PTC_WORKER");
  /* $PTC_WORKER names it. */
  setenv("PTC_WORKER", PTC_TEST_WORKER, 1);
  CHECK_STATUS(ptc_worker_pool_new("{\"workers\": 1}", PTC_NTS, &pool), PTC_OK);
  CHECK(pool != NULL);
  CHECK_CONTAINS(ptc_worker_pool_stats_json(pool, NULL), "\"worker_path\":\"");
  CHECK_CONTAINS(ptc_worker_pool_stats_json(pool, NULL), "/ptc-worker\"}");
  ptc_worker_pool_free(pool);
  if (saved)
    setenv("PTC_WORKER", saved, 1);
  else
    unsetenv("PTC_WORKER");
  free(saved);
}

static void test_isolated_runs(void) {
  g_test = "isolated runs";
  ptc_worker_pool* pool =
      new_pool("{\"workers\": 2, \"worker_path\": \"" PTC_TEST_WORKER "\", \"max_runs\": 0}");
  if (!pool) return;
  tool_state state;
  tool_state_init(&state);
  ptc_options* in_process = ptc_options_new();
  ptc_options* isolated = ptc_options_new();
  ptc_options* both[2] = {in_process, isolated};
  for (int i = 0; i < 2; ++i) {
    ptc_options* o = both[i];
    CHECK_STATUS(ptc_options_add_tool(o, "get-user", get_user, &state, NULL, 0), PTC_OK);
    CHECK_STATUS(ptc_options_add_tool(o, "echo", echo_args, NULL, NULL, 1), PTC_OK);
    CHECK_STATUS(
        ptc_options_set_context_json(
            o, "{\"orders\": [{\"user\": 7, \"total\": 30}, {\"user\": 8, \"total\": 12}]}",
            PTC_NTS),
        PTC_OK);
    CHECK_STATUS(ptc_options_set_memory_json(o, "{\"base\": 100}", PTC_NTS), PTC_OK);
  }
  CHECK_STATUS(ptc_options_set_isolate(isolated, pool), PTC_OK);

  static const char* const programs[] = {
      "(+ 1 2)",
      "{:a [1 2.5 nil] :b #{\"x\"} \"k\" :v :big 123456789012345678901234567890}",
      "(println \"hi\") (prn [1 2]) :done",
      "(def x 10) (defn times-x [n] (* n x base)) (times-x 4)",
      "(do\n  (+ 1 :a))",
      "(fail {:reason \"x\" :n 1})",
      "(return 5)",
      "(loop [i 0] (recur (inc i)))",
      "(mapv #(:name (tool/get-user {:id (:user %)})) (filter #(> (:total %) 20) data/orders))",
      "(tool/get-user {:id 0})",
      "[(tool/echo {:a 1}) (tool/echo {\"a\" 1})]",
      "(pmap inc (range 8))",
      "(tool/no-such-tool {})",
      "(/ 1 0)",
  };
  for (size_t i = 0; i < sizeof programs / sizeof *programs; ++i)
    check_same(programs[i], in_process, isolated);

  /* The callbacks run in this process (they count here), on threads of
   * their own: several at once for a pmap. */
  atomic_store(&state.calls, 0);
  state.thread_count = 0;
  state.sleep_ms = 30;
  ptc_result* r = run("(pmap #(:id (tool/get-user {:id %})) (range 1 9))", isolated, PTC_OK);
  CHECK_STR(ptc_result_value_json(r, NULL), "[1,2,3,4,5,6,7,8]");
  ptc_result_free(r);
  CHECK(atomic_load(&state.calls) == 8);
  CHECK(state.thread_count >= 2);
  state.sleep_ms = 0;

  /* A signature, limits and float precision reach the worker. */
  CHECK_STATUS(ptc_options_set_signature(isolated, "{total :int}"), PTC_OK);
  r = run("{:total \"x\"}", isolated, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "validation_error");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_signature(isolated, NULL), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(isolated, PTC_LIMIT_TIMEOUT_MS, 50), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(isolated, PTC_LIMIT_LOOP_LIMIT, 10000), PTC_OK);
  r = run(kSpin, isolated, PTC_PROGRAM_ERROR);
  CHECK_STR(ptc_result_error_reason(r), "timeout");
  ptc_result_free(r);
  CHECK_STATUS(ptc_options_set_limit(isolated, PTC_LIMIT_TIMEOUT_MS, 1000), PTC_OK);
  CHECK_STATUS(ptc_options_set_limit(isolated, PTC_LIMIT_LOOP_LIMIT, 1000), PTC_OK);

  /* Compiled programs run isolated too (the worker compiles the source). */
  ptc_program* program = NULL;
  CHECK_STATUS(ptc_compile("(* 6 base)", PTC_NTS, isolated, &program, NULL), PTC_OK);
  ptc_result* pr = NULL;
  CHECK_STATUS(ptc_program_run(program, isolated, &pr), PTC_OK);
  CHECK_STR(ptc_result_value_json(pr, NULL), "600");
  ptc_result_free(pr);
  ptc_program_free(program);

  /* Executions are refused, saying why; without the pool they start. */
  ptc_execution* e = NULL;
  CHECK_STATUS(ptc_start("(+ 1 2)", PTC_NTS, isolated, &e), PTC_INVALID_ARGUMENT);
  CHECK(e == NULL);
  CHECK_CONTAINS(ptc_last_error(), "cannot run isolated");
  CHECK_STATUS(ptc_load("x", 1, isolated, NULL, 0, &e), PTC_INVALID_ARGUMENT);
  CHECK_CONTAINS(ptc_last_error(), "cannot run isolated");

  /* The options keep the pool alive; a session copies the reference. */
  const char* stats = ptc_worker_pool_stats_json(pool, NULL);
  CHECK_CONTAINS(stats, "\"workers\":2,\"busy\":0,");
  CHECK_CONTAINS(stats, "\"died\":0,\"killed\":0,");
  ptc_worker_pool_free(pool);
  ptc_session* session = NULL;
  CHECK_STATUS(ptc_session_new(isolated, 3, &session), PTC_OK);
  CHECK_STATUS(ptc_options_set_isolate(isolated, NULL), PTC_OK);
  CHECK_STATUS(ptc_start("(+ 1 2)", PTC_NTS, isolated, &e), PTC_OK);
  ptc_execution_free(e);
  ptc_options_free(isolated);
  CHECK_EVAL(session, "(def y 2)", PTC_OK, "\"#'y\"");
  CHECK_EVAL(session, "(+ y base)", PTC_OK, "102");
  CHECK_EVAL(session, "(* *1 2)", PTC_OK, "204");
  CHECK_EVAL(session, "(:name (tool/get-user {:id 3}))", PTC_OK, "\"user-3\"");
  ptc_session_free(session); /* the last reference: the workers end */
  ptc_options_free(in_process);
  pthread_mutex_destroy(&state.mutex);
}

static void test_isolated_recycling(void) {
  g_test = "isolated recycling";
  ptc_worker_pool* pool =
      new_pool("{\"workers\": 1, \"max_runs\": 2, \"worker_path\": \"" PTC_TEST_WORKER "\"}");
  if (!pool) return;
  ptc_options* o = ptc_options_new();
  CHECK_STATUS(ptc_options_set_isolate(o, pool), PTC_OK);
  for (int i = 0; i < 5; ++i)
    CHECK_VALUE("(reduce + (range 10))", o, "45");
  const char* stats = ptc_worker_pool_stats_json(pool, NULL);
  CHECK_CONTAINS(stats, "\"runs\":5,\"recycled\":2,");
  ptc_options_free(o);
  ptc_worker_pool_free(pool);
}

int main(void) {
  test_version();
  test_values();
  test_options();
  test_prints();
  test_memory();
  test_errors();
  test_tools();
  test_limits();
  test_cancel();
  test_session();
  test_compiled_program();
  test_prepared_context();
  test_invalid_arguments();
  test_execution_start_and_resume();
  test_execution_deferring();
  test_execution_pmap();
  test_execution_error_answers();
  test_execution_bad_resumes();
  test_execution_dump_and_load();
  test_execution_signed_snapshots();
  test_execution_resumed_from_other_threads();
  test_execution_cancel_and_free();
  test_execution_invalid_arguments();
  test_execution_approvals();
  test_worker_pool_options();
  test_isolated_runs();
  test_isolated_recycling();
  printf("capi_tests: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
