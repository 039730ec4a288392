/* A C host embedding ptc-lisp through the C API (include/ptc/ptc.h): a JSON
 * context, a tool answered by a C callback, and the result read as JSON.
 * Build: the `ptc_embed_c_example` target; your own program links libptc
 * (pkg-config --cflags --libs ptc). */
#include <ptc/ptc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (tool/get-user {:id 7}) -> {"name": "Ada"}. May run on several threads at
 * once (pmap), so it only reads its arguments. */
static void get_user(void* user, const char* name, const char* args_json, size_t args_len,
                     ptc_tool_reply* reply) {
  (void)user;
  (void)name;
  (void)args_len;
  if (strstr(args_json, "\"id\":7"))
    ptc_tool_reply_set_result_json(reply, "{\"name\": \"Ada\"}", PTC_NTS);
  else
    ptc_tool_reply_set_error(reply, "no such user", PTC_NTS);
}

int main(void) {
  ptc_options* options = ptc_options_new();
  if (!options) return 1;
  const char* context =
      "{\"orders\": [{\"id\": 1, \"user\": 7, \"total\": 30},"
      "             {\"id\": 2, \"user\": 8, \"total\": 12}]}";
  if (ptc_options_set_context_json(options, context, PTC_NTS) != PTC_OK ||
      ptc_options_add_tool(options, "get-user", get_user, NULL, NULL, 1) != PTC_OK ||
      ptc_options_set_limit(options, PTC_LIMIT_TIMEOUT_MS, 500) != PTC_OK) {
    fprintf(stderr, "options: %s\n", ptc_last_error());
    ptc_options_free(options);
    return 1;
  }

  const char* programs[] = {
      "(->> data/orders (filter #(> (:total %) 20)) (mapv #(tool/get-user {:id (:user %)})))",
      "(tool/get-user {:id 8})",
  };
  int failures = 0;
  for (int i = 0; i < 2; ++i) {
    ptc_result* result = NULL;
    ptc_status status = ptc_run(programs[i], PTC_NTS, options, &result);
    if (status == PTC_OK) {
      printf("ok: %s\n", ptc_result_value_json(result, NULL));
    } else if (status == PTC_PROGRAM_ERROR) {
      ++failures;
      printf("error: %s at %u:%u: %s\n", ptc_result_error_reason(result),
             ptc_result_error_line(result), ptc_result_error_column(result),
             ptc_result_error_message(result, NULL));
    } else {
      fprintf(stderr, "%s: %s\n", ptc_status_name(status), ptc_last_error());
      ptc_options_free(options);
      return 1;
    }
    ptc_result_free(result);
  }
  ptc_options_free(options);
  return failures == 1 ? 0 : 1;
}
