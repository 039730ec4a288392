// A host embedding ptc-lisp: one conversation (ptc::Session) with a tool, a
// JSON context, and a helper defined in one turn and called in the next.
// Build: the `ptc_embed_example` target; link your own program to ptc::ptc.
#include <cstdio>
#include <string>

#include <ptc/ptc.hpp>

int main() {
  ptc::RunOptions defaults;
  defaults.context = ptc::parse_json(
      R"({"orders": [{"id": 1, "user": 7, "total": 30}, {"id": 2, "user": 8, "total": 12}]})");
  defaults.tools["get-user"] = {
      [](const ptc::HostValue& args) {
        const ptc::HostValue* id = args.get("id");
        if (!id || id->kind() != ptc::HostValue::Kind::Int)
          return ptc::ToolResult::failure("get-user needs an integer :id");
        return ptc::ToolResult::success(
            ptc::HostValue::map({{ptc::HostValue::string("name"),
                                  ptc::HostValue::string(id->as_int() == 7 ? "Ada" : "Bo")}}));
      },
      /*cacheable=*/true};
  ptc::Session session(defaults);

  const char* turns[] = {
      // Turn 1 defines a helper; it stays in the session's memory.
      "(defn big-orders [min] (filter #(> (:total %) min) data/orders))",
      // Turn 2 calls it and a tool.
      "(mapv #(:name (tool/get-user {:id (:user %)})) (big-orders 20))",
      // Turn 3 reads the previous result, and fails on purpose.
      "(if (= *1 [\"Ada\"]) (fail {:reason \"done\"}) :unexpected)",
  };
  int failures = 0;
  for (const char* source : turns) {
    ptc::Step step = session.eval(source);
    if (step.ok) {
      std::printf("ok: %s\n", step.printed.c_str());
    } else {
      ++failures;
      std::printf("error: %s\n", ptc::format_error(step.error).c_str());
    }
    for (const ptc::ToolCall& call : step.tool_calls)
      std::printf("  tool %s %s -> %s\n", call.name.c_str(), ptc::format_value(call.args).c_str(),
                  ptc::format_value(call.result).c_str());
  }
  return failures == 1 ? 0 : 1;
}
