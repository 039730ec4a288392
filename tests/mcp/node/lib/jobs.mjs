// The calls the load tests make: five kinds (arithmetic, context, prints, fail,
// a small collection), each with the exact text its reply must carry.
// The i-th call of caller c: {args, expect, error}.
export function job(c, i) {
  switch (i % 5) {
    case 0:
      return { args: { program: `(+ ${c * 10000000} ${i})` }, expect: `user=> ${c * 10000000 + i}` };
    case 1:
      return {
        args: { program: '(reduce + (map :n data/rows))', context: { rows: [{ n: c }, { n: i }, { n: 1 }] } },
        expect: `user=> ${c + i + 1}`,
      };
    case 2:
      return { args: { program: `(println "c${c}") (str "i" ${i})` }, expect: `c${c}\n\nuser=> "i${i}"` };
    case 3:
      return { args: { program: `(fail ${i})` }, expect: `fail: ${i}\nvalue: ${i}`, error: true };
    default:
      return { args: { program: `(count (range ${i % 100}))` }, expect: `user=> ${i % 100}` };
  }
}

