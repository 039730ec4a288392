#include "runtime/builtins/special_forms.hpp"

#include <algorithm>

namespace ptc {

namespace {

// clang-format off
constexpr SpecialForm kSpecialForms[] = {
    {"def", "(def name value)", "Binds name in the user namespace; returns the var #'name."},
    {"defn", "(defn name [params] body...)", "Defines a named function; several arities may be given as ([params] body) lists."},
    {"defn-", "(defn- name [params] body...)", "Same as defn (PTC-Lisp has no private names)."},
    {"defonce", "(defonce name value)", "Like def, but only when name is not yet bound."},
    {"fn", "(fn name? [params] body...)", "An anonymous function; parameters may destructure."},
    {"let", "(let [name value ...] body...)", "Local bindings, evaluated left to right; names may destructure."},
    {"loop", "(loop [name init ...] body...)", "A recursion point for recur; jumps count against the loop limit."},
    {"recur", "(recur args...)", "Jumps back to the nearest loop or fn with new values; tail position only."},
    {"if", "(if test then else?)", "then when test is truthy (not nil or false), otherwise else."},
    {"if-not", "(if-not test then else?)", "if with the branches swapped."},
    {"when", "(when test body...)", "The body when test is truthy, otherwise nil."},
    {"when-not", "(when-not test body...)", "The body when test is falsy, otherwise nil."},
    {"cond", "(cond test expr ...)", "The expr of the first truthy test; :else as a catch-all."},
    {"case", "(case expr const result ... default?)", "Dispatch on constant values; grouped constants in a list."},
    {"condp", "(condp pred expr test result ... default?)", "The result of the first test for which (pred test expr) is truthy."},
    {"if-let", "(if-let [pattern expr] then else?)", "Binds expr and takes then when it is truthy."},
    {"when-let", "(when-let [pattern expr] body...)", "Binds expr and runs the body when it is truthy."},
    {"if-some", "(if-some [pattern expr] then else?)", "Like if-let, but only nil counts as missing."},
    {"when-some", "(when-some [pattern expr] body...)", "Like when-let, but only nil counts as missing."},
    {"when-first", "(when-first [name coll] body...)", "Binds the first item and runs the body when coll is not empty."},
    {"do", "(do expr...)", "Evaluates the expressions in order; the last value is the result."},
    {"and", "(and x ...)", "The first falsy value, or the last value; stops early."},
    {"or", "(or x ...)", "The first truthy value, or the last value; stops early."},
    {"->", "(-> x form...)", "Threads x as the first argument through the forms."},
    {"->>", "(->> x form...)", "Threads x as the last argument through the forms."},
    {"as->", "(as-> x name form...)", "Threads x through the forms bound to name."},
    {"cond->", "(cond-> x test form ...)", "Threads x (first argument) through the forms whose test is truthy."},
    {"cond->>", "(cond->> x test form ...)", "Threads x (last argument) through the forms whose test is truthy."},
    {"some->", "(some-> x form...)", "Threads x (first argument) while the value is not nil."},
    {"some->>", "(some->> x form...)", "Threads x (last argument) while the value is not nil."},
    {"for", "(for [x coll :when t :let [..] :while t ...] body)", "A vector of body values over the bindings (nested loops)."},
    {"doseq", "(doseq [x coll ...] body...)", "Runs the body for each binding, for side effects; returns nil."},
    {"dotimes", "(dotimes [i n] body...)", "Runs the body n times with i from 0; returns nil."},
    {"return", "(return value)", "Ends the program successfully with value."},
    {"fail", "(fail value)", "Ends the program with an error carrying value."},
    {"comment", "(comment ...)", "Ignores its body; evaluates to nil."},
    {"quote", "(quote symbol)", "The symbol itself, unevaluated; 'x for short."},
    {"task", "(task \"id\" expr)", "Runs expr as a journaled task (cached by id when the host provides a journal)."},
};
// clang-format on

}  // namespace

std::span<const SpecialForm> special_forms() {
  return kSpecialForms;
}

bool is_special_form(std::string_view name) {
  return std::any_of(std::begin(kSpecialForms), std::end(kSpecialForms),
                     [&](const SpecialForm& s) { return s.name == name; });
}

}  // namespace ptc
