/* The C API (include/ptc/ptc.h) from C: values and their JSON form, prints,
 * memory, every error path with line:column, tools (success, error replies,
 * calls from pmap worker threads), limits, cancellation from another thread,
 * sessions, compiled programs, prepared contexts shared by threads, and
 * invalid arguments. Compiled as C11 with -Wall -Wextra -Werror. */
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
  printf("capi_tests: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
