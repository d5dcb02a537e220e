// Parser errors: the exact message and line:col for every construct outside the kernel subset and for
// syntax errors, recovery that collects several errors in one parse, and the rendered caret output.
#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace gpujit {
namespace {

using test::all_errors;
using test::parse;

struct ErrorCase {
  const char* body;  // the lines after `def k(a, b):`, which is line 1
  const char* expected;
};

// Each body is parsed as the kernel `def k(a, b):` and must give exactly the one expected error.
const ErrorCase kUnsupported[] = {
    {"    x = lambda: 1\n", "2:9: 'lambda' is not supported in kernels"},
    {"    f(lambda: 1)\n", "2:7: 'lambda' is not supported in kernels"},
    {"    x = [1, 2]\n",
     "2:9: lists are not supported in kernels; use a tuple or a local array (gpu.local.array)"},
    {"    x = []\n",
     "2:9: lists are not supported in kernels; use a tuple or a local array (gpu.local.array)"},
    {"    x = [i * 2 for i in a]\n", "2:9: list comprehensions are not supported in kernels; use a loop"},
    {"    x = {1, 2}\n", "2:9: sets are not supported in kernels"},
    {"    x = {i for i in a}\n", "2:9: set comprehensions are not supported in kernels; use a loop"},
    {"    x = {1: 2}\n", "2:9: dicts are not supported in kernels"},
    {"    x = {}\n", "2:9: dicts are not supported in kernels"},
    {"    x = {**a}\n", "2:9: dicts are not supported in kernels"},
    {"    x = {k: a[k] for k in b}\n", "2:9: dict comprehensions are not supported in kernels; use a loop"},
    {"    x = (i for i in a)\n", "2:9: generator expressions are not supported in kernels; use a loop"},
    {"    x = sum(i for i in a)\n", "2:12: generator expressions are not supported in kernels; use a loop"},
    {"    with a:\n        pass\n", "2:5: 'with' is not supported in kernels"},
    {"    try:\n        pass\n    except E:\n        pass\n    else:\n        pass\n    finally:\n        "
     "pass\n",
     "2:5: 'try' is not supported in kernels"},
    {"    raise ValueError('bad') from e\n", "2:29: 'raise ... from' is not supported in kernels"},
    {"    class C:\n        pass\n", "2:5: 'class' is not supported in kernels"},
    {"    global g\n",
     "2:5: 'global' is not supported in kernels; module-level constants can be read without it"},
    {"    nonlocal g\n", "2:5: 'nonlocal' is not supported in kernels"},
    {"    yield a\n", "2:5: 'yield' is not supported in kernels"},
    {"    x = yield a\n", "2:9: 'yield' is not supported in kernels"},
    {"    x = (yield)\n", "2:10: 'yield' is not supported in kernels"},
    {"    await a\n", "2:5: 'await' is not supported in kernels"},
    {"    x = 1 + await a\n", "2:13: 'await' is not supported in kernels"},
    {"    async for x in a:\n        pass\n", "2:5: 'async' is not supported in kernels"},
    {"    del a\n", "2:5: 'del' is not supported in kernels"},
    {"    assert a > 0, 'message'\n", "2:5: 'assert' is not supported in kernels"},
    {"    import math\n", "2:5: 'import' is not supported in kernels; import at module level"},
    {"    from math import sqrt\n",
     "2:5: 'from ... import' is not supported in kernels; import at module level"},
    {"    if (n := 3) > 2:\n        pass\n",
     "2:11: assignment expressions (':=') are not supported in kernels; assign in a separate statement"},
    {"    f(x := 1)\n",
     "2:9: assignment expressions (':=') are not supported in kernels; assign in a separate statement"},
    {"    x := 1\n",
     "2:7: assignment expressions (':=') are not supported in kernels; assign in a separate statement"},
    {"    x = *a, b\n", "2:9: starred expressions ('*x') are not supported in kernels"},
    {"    first, *rest = a\n", "2:12: starred expressions ('*x') are not supported in kernels"},
    {"    f(*a, k=1, *b)\n", "2:17: an unpacked '*' argument follows a keyword argument; put it first"},
    {"    f(**a)\n", "2:7: '**' argument unpacking is not supported in kernels"},
    {"    for *x in a:\n        pass\n", "2:9: starred expressions ('*x') are not supported in kernels"},
    {"    x = f\"{a}\"\n", "2:9: f-strings are not supported in kernels"},
    {"    x = 'a' f\"{a}\"\n", "2:13: f-strings are not supported in kernels"},
    {"    x = b'abc' 'd'\n", "2:16: cannot mix bytes and nonbytes literals"},
    {"    x = a @ b\n", "2:11: the matrix multiplication operator '@' is not supported in kernels"},
    {"    a @= b\n", "2:7: the matrix multiplication operator '@=' is not supported in kernels"},
    {"    match a:\n        case 1:\n            pass\n",
     "2:5: 'match' is not supported in kernels; use if/elif"},
    {"    x = a[..., 0]\n", "2:11: '...' (Ellipsis) is not supported in kernels"},
    {"    x = 18446744073709551616\n", "2:9: integer literal '18446744073709551616' does not fit in 64 bits"},
};

const ErrorCase kBadTargets[] = {
    {"    f() = 1\n", "2:5: cannot assign to a function call"},
    {"    1 = a\n", "2:5: cannot assign to a literal"},
    {"    a + b = 1\n", "2:5: cannot assign to an expression"},
    {"    x = a + b = 1\n", "2:9: cannot assign to an expression"},
    {"    a, b += 1\n", "2:5: augmented assignment to a tuple is not supported; update each element"},
    {"    f() += 1\n", "2:5: cannot assign to a function call"},
    {"    for f() in a:\n        pass\n", "2:9: cannot assign to a function call"},
    {"    x: int\n", "2:5: a variable annotation without a value is not supported in kernels; assign a value"},
};

const ErrorCase kSyntax[] = {
    {"    x = (1 +)\n", "2:13: expected an expression, found ')'"},
    {"    x = 1 +\n", "2:12: expected an expression, found end of line"},
    {"    x = a b\n", "2:11: expected end of statement, found 'b'"},
    {"    if a\n        pass\n", "2:9: expected ':' after the 'if' condition, found end of line"},
    {"    while a b:\n        pass\n", "2:13: expected ':' after the 'while' condition, found 'b'"},
    {"    for i range(3):\n        pass\n", "2:11: expected 'in' after the 'for' target, found 'range'"},
    {"    for i in a\n        pass\n", "2:15: expected ':' after the 'for' iterable, found end of line"},
    {"    f(a b)\n", "2:9: expected ',' or ')' in the call arguments, found 'b'"},
    {"    x = a[1 2]\n", "2:13: expected ',' or ']' in the subscript, found '2'"},
    {"    x = a[]\n", "2:11: expected an expression, found ']'"},
    {"    x = (a b)\n", "2:12: expected ')', found 'b'"},
    {"    x = (a, b c)\n", "2:15: expected ',' or ')' in the tuple, found 'c'"},
    {"    x = a if b\n", "2:15: expected 'else' in the conditional expression, found end of line"},
    {"    x = a.\n", "2:11: expected an attribute name after '.', found end of line"},
    {"    x = a.if\n", "2:11: expected an attribute name after '.', found 'if'"},
    {"    x = if\n", "2:9: expected an expression, found 'if'"},
    {"    if a:\n    pass\n", "3:5: expected an indented block after 'if' statement on line 2"},
    {"    if a:\n        pass\n    else:\n    pass\n", "5:5: expected an indented block after 'else' statement on line 4"},
    {"    else:\n        pass\n", "2:5: 'else' without a matching 'if', 'for' or 'while'"},
    {"    elif a:\n        pass\n", "2:5: 'elif' without a matching 'if'"},
    {"    except E:\n        pass\n", "2:5: 'except' without a matching 'try'"},
    {"    x = 1\n        y = 2\n", "3:9: unexpected indent"},
    {"    f(a=1, b)\n", "2:12: positional argument follows keyword argument"},
    {"    f(a=1, a=2)\n", "2:12: keyword argument repeated: 'a'"},
    {"    f(a.b=1)\n", "2:7: a keyword argument name must be a plain name"},
    {"    @gpu.jit\n    x = 1\n", "2:5: a decorator must be followed by a function or class definition"},
    {"    print 'hello'\n", "2:11: expected end of statement, found a string literal"},
};

void check_cases(const ErrorCase* begin, const ErrorCase* end) {
  for (const ErrorCase* c = begin; c != end; ++c) {
    auto m = parse(std::string("def k(a, b):\n") + c->body);
    EXPECT_EQ(all_errors(*m), std::vector<std::string>{c->expected}) << c->body;
    EXPECT_FALSE(m->errors.has_errors()) << "errors inside a function belong to the function: " << c->body;
    EXPECT_EQ(m->functions.size(), 1u) << c->body;
  }
}

TEST(ParserErrors, UnsupportedConstructs) { check_cases(std::begin(kUnsupported), std::end(kUnsupported)); }
TEST(ParserErrors, InvalidAssignmentTargets) { check_cases(std::begin(kBadTargets), std::end(kBadTargets)); }
TEST(ParserErrors, SyntaxErrors) { check_cases(std::begin(kSyntax), std::end(kSyntax)); }

TEST(ParserErrors, UnsupportedParameters) {
  const std::pair<const char*, const char*> cases[] = {
      {"def k(a, *args, b): pass\n", "1:17: parameters after '*args' (keyword-only) are not supported in kernels"},
      {"def k(a, **kw): pass\n", "1:10: '**kw' parameters are not supported in kernels"},
      {"def k(a, *, b): pass\n", "1:10: keyword-only parameters are not supported in kernels"},
      {"def k(a, a): pass\n", "1:10: duplicate parameter 'a'"},
      {"def k(a b): pass\n", "1:9: expected ')' to close the parameter list, found 'b'"},
      {"def k(1): pass\n", "1:7: expected a parameter name, found '1'"},
      {"def k(a) pass\n", "1:10: expected ':' after the function signature, found 'pass'"},
      {"def k:\n    pass\n", "1:6: expected '(' after the function name, found ':'"},
  };
  for (const auto& [source, expected] : cases) {
    auto m = parse(source);
    EXPECT_EQ(all_errors(*m), std::vector<std::string>{expected}) << source;
    ASSERT_EQ(m->functions.size(), 1u) << source;
  }
  // `*args` is a device function's tuple of extra arguments (ir/sema_device_call.cpp), and `f(*t)` unpacks one.
  auto star = parse("def f(a, *args: int):\n    return g(a, *args)\n");
  EXPECT_EQ(all_errors(*star), std::vector<std::string>{});
  ASSERT_EQ(star->functions.size(), 1u);
  ASSERT_TRUE(star->functions[0]->vararg.has_value());
  EXPECT_EQ(star->functions[0]->vararg->name, "args");
  EXPECT_EQ(star->functions[0]->params.size(), 1u);
  // The positional-only marker is harmless and accepted.
  EXPECT_EQ(all_errors(*parse("def k(a, /, b): pass\n")), std::vector<std::string>{});
  EXPECT_EQ(parse("def k(a, /, b): pass\n")->functions[0]->params.size(), 2u);
}

TEST(ParserErrors, ModuleLevelErrors) {
  auto m = parse("def (a):\n    pass\nx = 1\n    y = 2\n");
  EXPECT_EQ(all_errors(*m), (std::vector<std::string>{"1:5: expected a function name after 'def', found '('",
                                                      "4:5: unexpected indent"}));
  EXPECT_TRUE(m->functions.empty());
  ASSERT_EQ(m->globals.size(), 1u);
}

TEST(ParserErrors, AnyDecoratorPythonAcceptsIsAccepted) {
  // Python evaluates decorators, so one outside the kernel grammar is skipped without an error (and kept out
  // of the AST); the readable decorators around it are kept.
  struct Case {
    const char* decorator;
    size_t kept;  // 3 when the middle decorator is in the expression grammar, 2 when it is skipped
  };
  const Case kCases[] = {
      {"@jit({1: 2})\n", 2},
      {"@cuda.jit(*args, link=[link])\n", 3},
      {"@cuda.jit(**options)\n", 2},
      {"@cuda.jit('void(int32[:])', **options)\n", 2},
      {"@jit(lambda x: x)\n", 2},
      {"@jit(x := 1)\n", 2},
      {"@jit(sig for sig in sigs)\n", 2},
      {"@jit(\n    *sigs,\n    link=[a,\n          b],\n)\n", 3},
      {"@jit(\n    **{'link': [a,\n              b]},\n)\n", 2},
      {"@registry[0].jit(link={'a': 1})\n", 2},
  };
  for (const Case& c : kCases) {
    auto m = parse(std::string("@gpu.jit\n") + c.decorator + "@other\ndef k(a):\n    a[0] = 1\n");
    ASSERT_EQ(m->functions.size(), 1u) << c.decorator;
    EXPECT_EQ(all_errors(*m), std::vector<std::string>{}) << c.decorator;
    EXPECT_EQ(m->functions[0]->decorators.size(), c.kept) << c.decorator;
    EXPECT_EQ(m->functions[0]->body.size(), 1u) << c.decorator;
  }
}

TEST(ParserErrors, SeveralErrorsAreCollectedInOneParse) {
  auto m = parse(
      "@gpu.jit\n"
      "def k(a, b):\n"
      "    x = [1, 2]\n"
      "    for i in range(3):\n"
      "        y = lambda: i\n"
      "        a[i] = i\n"
      "    with ctx:\n"
      "        z = {1: 2}\n"
      "    if a:\n"
      "        pass\n"
      "    elif (b for b in a):\n"
      "        pass\n"
      "    else:\n"
      "        pass\n"
      "    w = a +\n"
      "    return a @ b\n"
      "@gpu.jit\n"
      "def fine(a):\n"
      "    a[0] = 1\n");
  EXPECT_EQ(all_errors(*m),
            (std::vector<std::string>{
                "3:9: lists are not supported in kernels; use a tuple or a local array (gpu.local.array)",
                "5:13: 'lambda' is not supported in kernels",
                "7:5: 'with' is not supported in kernels",
                "11:10: generator expressions are not supported in kernels; use a loop",
                "15:12: expected an expression, found end of line",
                "16:14: the matrix multiplication operator '@' is not supported in kernels",
            }));
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->functions[0]->errors.error_count(), 6u);
  // What did parse is kept: the for loop, with the good statement of its body.
  const FunctionDef& k = *m->functions[0];
  ASSERT_EQ(k.body.size(), 1u);
  const auto* loop = k.body[0]->as<ForStmt>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->body.size(), 1u);
  EXPECT_FALSE(m->functions[1]->errors.has_errors());
}

TEST(ParserErrors, RenderedWithCaretUnderTheConstruct) {
  auto m = parse("@gpu.jit\ndef k(a):\n    b = [x * 2 for x in a]\n    c = a + lambda: 1\n", 1);
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0]->errors.render(),
            "kernel.py:3:9: error: list comprehensions are not supported in kernels; use a loop\n"
            "    b = [x * 2 for x in a]\n"
            "        ^~~~~~~~~~~~~~~~~~\n"
            "kernel.py:4:13: error: 'lambda' is not supported in kernels\n"
            "    c = a + lambda: 1\n"
            "            ^~~~~~\n");
}

TEST(ParserErrors, FirstLineOffsetReportsTheUsersLine) {
  // The shim hands over a function whose first line is line 40 of the user's file.
  auto m = parse("def k(a):\n    i = 0\n    a[i] = [i]\n", 40);
  EXPECT_EQ(all_errors(*m), std::vector<std::string>{
                                "42:12: lists are not supported in kernels; use a tuple or a local array (gpu.local.array)"});
  EXPECT_EQ(m->functions[0]->errors.render(),
            "kernel.py:42:12: error: lists are not supported in kernels; use a tuple or a local array "
            "(gpu.local.array)\n"
            "    a[i] = [i]\n"
            "           ^~~\n");
}

TEST(ParserErrors, DeepNestingIsAnErrorNotACrash) {
  // 200 levels parse; the 201st parenthesis (column 9 + 200) is one too many.
  auto nested = [](size_t n) { return "def k(a):\n    x = " + std::string(n, '(') + "1" + std::string(n, ')') + "\n"; };
  EXPECT_EQ(all_errors(*parse(nested(199))), std::vector<std::string>{});
  EXPECT_EQ(all_errors(*parse(nested(500))), std::vector<std::string>{"2:209: expression is too deeply nested"});
  std::string unary = "def k(a):\n    x = " + std::string(5000, '-') + "1\n";
  EXPECT_EQ(parse(unary)->functions[0]->errors.error_count(), 1u);
  std::string power = "def k(a):\n    x = 2";
  for (int i = 0; i < 5000; ++i) power += "**2";
  EXPECT_EQ(parse(power + "\n")->functions[0]->errors.error_count(), 1u);
}

TEST(ParserErrors, LongChainsAreAnErrorNotACrash) {
  // A chain of operators or trailers builds a tree as deep as it is long, with no nesting to count; found by
  // fuzz_parse (20,000 terms overflowed the stack). 1000 operators parse; the 1001st is reported.
  auto sum = [](size_t ops) {
    std::string s = "def k(a):\n    x = a";
    for (size_t i = 0; i < ops; ++i) s += "+a";
    return s + "\n";
  };
  EXPECT_EQ(all_errors(*parse(sum(1000))), std::vector<std::string>{});
  const std::string too_long =
      "too long a chain: more than 1000 operators, calls, subscripts, attributes or elif clauses in a row; "
      "split it over several statements";
  EXPECT_EQ(all_errors(*parse(sum(1001))), std::vector<std::string>{"2:2010: " + too_long});
  EXPECT_EQ(all_errors(*parse(sum(20000))), std::vector<std::string>{"2:2010: " + too_long});
  for (const char* trailer : {"[0]", "(a)", ".b"}) {
    std::string source = "def k(a):\n    x = a";
    for (int i = 0; i < 20000; ++i) source += trailer;
    EXPECT_EQ(parse(source + "\n")->functions[0]->errors.error_count(), 1u) << trailer;
  }
  std::string elifs = "def k(a):\n    if a:\n        pass\n";
  for (int i = 0; i < 20000; ++i) elifs += "    elif a:\n        pass\n";
  EXPECT_EQ(parse(elifs)->functions[0]->errors.error_count(), 1u);
}

TEST(ParserErrors, TooManyIndentationLevels) {
  std::string source = "def k(a):\n";
  for (int i = 1; i <= 120; ++i) source += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
  source += std::string(121, ' ') + "pass\n";
  auto m = parse(source);
  ASSERT_EQ(m->errors.error_count(), 1u);
  EXPECT_EQ(m->errors.first_error()->message, "too many levels of indentation");
}

}  // namespace
}  // namespace gpujit
