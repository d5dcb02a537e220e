// The parser on valid input: expression precedence, statements, functions and the module level.
#include <gtest/gtest.h>

#include "frontend/ast_dump.h"
#include "frontend_test_util.h"

namespace gpujit {
namespace {

using test::all_errors;
using test::parse;
using test::sexpr;

// The one function of a module that must parse without errors.
const FunctionDef& only_function(const Module& m) {
  EXPECT_EQ(all_errors(m), std::vector<std::string>{});
  EXPECT_EQ(m.functions.size(), 1u);
  return *m.functions.front();
}

// An expression, parsed as the value of `_ = <text>` in a kernel, as an S-expression.
std::string expr(const std::string& text) {
  auto m = parse("def f():\n    _ = " + text + "\n");
  const FunctionDef& fn = only_function(*m);
  if (fn.body.size() != 1 || !fn.body[0]->as<AssignStmt>()) return "<not an assignment>";
  return sexpr(*fn.body[0]->as<AssignStmt>()->value);
}

// The statements of a kernel body written with four-space indentation.
std::unique_ptr<Module> parse_body(const std::string& body) { return parse("def f():\n" + body); }

// A `def` in a body leaves the body and becomes one of the enclosing function's nested functions, with its
// own nested ones; a syntax error inside it is its own, and the enclosing body goes on after it.
TEST(ParserFunction, NestedDefsLeaveTheBodyForTheEnclosingFunction) {
  auto m = parse_body("    y = 1\n    @cuda.jit\n    def inner(a, b=2):\n        def deeper():\n            return 1\n"
                      "        return a + b + deeper()\n    def bad(x):\n        return x +\n    return inner(y)\n");
  ASSERT_EQ(m->functions.size(), 1u);
  const FunctionDef& f = *m->functions[0];
  EXPECT_EQ(f.errors.all().size(), 0u);
  ASSERT_EQ(f.body.size(), 4u);  // y = 1; pass (for inner); pass (for bad); return inner(y)
  EXPECT_TRUE(f.body[1]->as<PassStmt>());
  EXPECT_TRUE(f.body[3]->as<ReturnStmt>());
  ASSERT_EQ(f.nested.size(), 2u);
  const FunctionDef& inner = *f.nested[0];
  EXPECT_EQ(inner.name, "inner");
  EXPECT_EQ(inner.enclosing, &f);
  EXPECT_EQ(inner.params.size(), 2u);
  EXPECT_EQ(inner.body.size(), 2u);  // pass (for deeper); return
  ASSERT_EQ(inner.nested.size(), 1u);
  EXPECT_EQ(inner.nested[0]->name, "deeper");
  EXPECT_EQ(inner.nested[0]->enclosing, &inner);
  EXPECT_EQ(f.nested[1]->name, "bad");
  EXPECT_TRUE(f.nested[1]->errors.has_errors());
}

TEST(ParserExpr, ArithmeticPrecedence) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b // c % d"), "(% (// (/ a b) c) d)");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(ParserExpr, PowerIsRightAssociativeAndBindsTighterThanUnaryOnItsLeft) {
  EXPECT_EQ(expr("-2**2"), "(neg (** 2 2))");
  EXPECT_EQ(expr("2**-1"), "(** 2 (neg 1))");
  EXPECT_EQ(expr("2**3**2"), "(** 2 (** 3 2))");
  EXPECT_EQ(expr("-a.b**c[1]"), "(neg (** (. a b) ([] c 1)))");
  EXPECT_EQ(expr("~-+x"), "(~ (neg (+ x)))");
}

TEST(ParserExpr, BitwiseAndShiftPrecedence) {
  EXPECT_EQ(expr("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
  EXPECT_EQ(expr("a & b | c"), "(| (& a b) c)");
}

TEST(ParserExpr, ComparisonsChainAndBindLooserThanBitwise) {
  EXPECT_EQ(expr("0 <= i < n"), "(cmp 0 <= i < n)");
  EXPECT_EQ(expr("a == b | c"), "(cmp a == (| b c))");
  EXPECT_EQ(expr("a is not None"), "(cmp a is not None)");
  EXPECT_EQ(expr("a not in b"), "(cmp a not in b)");
  EXPECT_EQ(expr("a in b is c != d > e >= f"), "(cmp a in b is c != d > e >= f)");
}

TEST(ParserExpr, BooleanOperators) {
  EXPECT_EQ(expr("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(expr("a and b and c"), "(and a b c)");
  EXPECT_EQ(expr("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(expr("not a and not b or c"), "(or (and (not a) (not b)) c)");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
}

TEST(ParserExpr, ConditionalExpression) {
  EXPECT_EQ(expr("a if c else b"), "(if c a b)");
  EXPECT_EQ(expr("a if c else b if d else e"), "(if c a (if d b e))");
  EXPECT_EQ(expr("x + 1 if a or b else -x"), "(if (or a b) (+ x 1) (neg x))");
}

TEST(ParserExpr, TupleDisplays) {
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a, b,)"), "(tuple a b)");
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("a,"), "(tuple a)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("((a, b), c)"), "(tuple (tuple a b) c)");
}

TEST(ParserExpr, Subscripts) {
  EXPECT_EQ(expr("a[i]"), "([] a i)");
  EXPECT_EQ(expr("a[i, j]"), "([] a (tuple i j))");
  EXPECT_EQ(expr("a[i,]"), "([] a (tuple i))");
  EXPECT_EQ(expr("a[(i, j)]"), "([] a (tuple i j))");
  EXPECT_EQ(expr("a[1:n:2, ::1]"), "([] a (tuple (: 1 n 2) (: _ _ 1)))");
  EXPECT_EQ(expr("a[:]"), "([] a (: _ _ _))");
  EXPECT_EQ(expr("a[::]"), "([] a (: _ _ _))");
  EXPECT_EQ(expr("a[i:]"), "([] a (: i _ _))");
  EXPECT_EQ(expr("a[:j]"), "([] a (: _ j _))");
  EXPECT_EQ(expr("a[i][j]"), "([] ([] a i) j)");
  EXPECT_EQ(expr("a[i + 1, -j]"), "([] a (tuple (+ i 1) (neg j)))");
}

TEST(ParserExpr, CallsAndAttributes) {
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(a, b,)"), "(call f a b)");
  EXPECT_EQ(expr("gpu.shared.array(shape=(32, 32), dtype=gpu.float32)"),
            "(call (. (. gpu shared) array) shape=(tuple 32 32) dtype=(. gpu float32))");
  EXPECT_EQ(expr("gpu.atomic.add(a, 0, 1)"), "(call (. (. gpu atomic) add) a 0 1)");
  EXPECT_EQ(expr("f(a)(b)[c].d"), "(. ([] (call (call f a) b) c) d)");
  EXPECT_EQ(expr("x.shape[0]"), "([] (. x shape) 0)");
}

TEST(ParserExpr, Literals) {
  EXPECT_EQ(expr("True"), "True");
  EXPECT_EQ(expr("None"), "None");
  EXPECT_EQ(expr("0x2a"), "42");
  EXPECT_EQ(expr("1.5"), "f1.500000");
  EXPECT_EQ(expr("'a' \"b\"\n    '''c'''"), "<not an assignment>");  // a new line ends the statement
  EXPECT_EQ(expr("('a' \"b\"\n      '''c''')"), "'abc'");                 // adjacent literals concatenate
  EXPECT_EQ(expr("'x' 'y'"), "'xy'");
}

TEST(ParserExpr, RangesCoverTheExpression) {
  auto m = parse("def f():\n    _ = (a + b) * c[1]\n");
  const auto* value = only_function(*m).body[0]->as<AssignStmt>()->value.get();
  const auto* mul = value->as<BinOpExpr>();
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->range.begin, (SourceLoc{2, 9}));
  EXPECT_EQ(mul->range.end, (SourceLoc{2, 23}));
  EXPECT_EQ(mul->op_range.begin, (SourceLoc{2, 17}));
  EXPECT_EQ(mul->lhs->range.begin, (SourceLoc{2, 10}));  // the inner expression excludes the parentheses
  EXPECT_EQ(mul->lhs->range.end, (SourceLoc{2, 15}));
}

TEST(ParserStmt, AssignmentTargets) {
  auto m = parse_body(
      "    a, b = b, a\n"
      "    A[i, j] = x\n"
      "    a = b = 0\n"
      "    (c, d) = e\n"
      "    [g] = h\n");
  const FunctionDef& fn = *m->functions[0];
  ASSERT_EQ(fn.body.size(), 4u) << "the list target is rejected";
  EXPECT_EQ(all_errors(*m), std::vector<std::string>{
                                "6:5: lists are not supported in kernels; use a tuple or a local array (gpu.local.array)"});
  const auto* swap = fn.body[0]->as<AssignStmt>();
  ASSERT_EQ(swap->targets.size(), 1u);
  EXPECT_EQ(sexpr(*swap->targets[0]), "(tuple a b)");
  EXPECT_EQ(sexpr(*swap->value), "(tuple b a)");
  EXPECT_EQ(sexpr(*fn.body[1]->as<AssignStmt>()->targets[0]), "([] A (tuple i j))");
  const auto* chained = fn.body[2]->as<AssignStmt>();
  ASSERT_EQ(chained->targets.size(), 2u);
  EXPECT_EQ(sexpr(*chained->targets[0]), "a");
  EXPECT_EQ(sexpr(*chained->targets[1]), "b");
  EXPECT_EQ(sexpr(*chained->value), "0");
  EXPECT_EQ(sexpr(*fn.body[3]->as<AssignStmt>()->targets[0]), "(tuple c d)");
}

TEST(ParserStmt, AllAugmentedAssignments) {
  const std::pair<const char*, BinOpKind> ops[] = {
      {"+=", BinOpKind::Add},       {"-=", BinOpKind::Sub},     {"*=", BinOpKind::Mul},
      {"/=", BinOpKind::Div},       {"//=", BinOpKind::FloorDiv}, {"%=", BinOpKind::Mod},
      {"**=", BinOpKind::Pow},      {"<<=", BinOpKind::LShift}, {">>=", BinOpKind::RShift},
      {"&=", BinOpKind::BitAnd},    {"|=", BinOpKind::BitOr},   {"^=", BinOpKind::BitXor}};
  for (const auto& [text, op] : ops) {
    auto m = parse_body(std::string("    a[i] ") + text + " x + 1\n");
    const FunctionDef& fn = only_function(*m);
    ASSERT_EQ(fn.body.size(), 1u) << text;
    const auto* aug = fn.body[0]->as<AugAssignStmt>();
    ASSERT_NE(aug, nullptr) << text;
    EXPECT_EQ(aug->op, op) << text;
    EXPECT_EQ(sexpr(*aug->target), "([] a i)");
    EXPECT_EQ(sexpr(*aug->value), "(+ x 1)");
  }
}

TEST(ParserStmt, IfElifElseChain) {
  auto m = parse_body(
      "    if a:\n"
      "        x = 1\n"
      "    elif b:\n"
      "        x = 2\n"
      "    elif c:\n"
      "        pass\n"
      "    else:\n"
      "        x = 3\n"
      "        y = 4\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_EQ(fn.body.size(), 1u);
  const auto* top = fn.body[0]->as<IfStmt>();
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(sexpr(*top->test), "a");
  ASSERT_EQ(top->orelse.size(), 1u);
  const auto* elif1 = top->orelse[0]->as<IfStmt>();
  ASSERT_NE(elif1, nullptr);
  EXPECT_EQ(elif1->range.begin, (SourceLoc{4, 5}));
  ASSERT_EQ(elif1->orelse.size(), 1u);
  const auto* elif2 = elif1->orelse[0]->as<IfStmt>();
  ASSERT_NE(elif2, nullptr);
  EXPECT_EQ(sexpr(*elif2->test), "c");
  EXPECT_EQ(elif2->orelse.size(), 2u);
  // The if statement ends with its last statement, not at the next line.
  EXPECT_EQ(top->range.end, (SourceLoc{10, 14}));
}

TEST(ParserStmt, ForAndWhileWithElse) {
  auto m = parse_body(
      "    for i, j in zip(a, b):\n"
      "        if i:\n"
      "            break\n"
      "        continue\n"
      "    else:\n"
      "        pass\n"
      "    while i < n:\n"
      "        i += 1\n"
      "    else:\n"
      "        return\n"
      "    for k in range(n): x[k] = 0\n");
  const FunctionDef& fn = only_function(*m);
  // A loop over anything but range() becomes one over range() that indexes (parser.cpp, parse_for): the
  // iterables are bound first, and the target is assigned at the top of the body.
  ASSERT_EQ(fn.body.size(), 5u);
  EXPECT_EQ(sexpr(*fn.body[0]->as<AssignStmt>()->targets[0]), "$for0_0");
  EXPECT_EQ(sexpr(*fn.body[0]->as<AssignStmt>()->value), "a");
  EXPECT_EQ(sexpr(*fn.body[1]->as<AssignStmt>()->value), "b");
  const auto* loop = fn.body[2]->as<ForStmt>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(sexpr(*loop->target), "$for0");
  EXPECT_EQ(sexpr(*loop->iter), "(call range (call min (call len $for0_0) (call len $for0_1)))");
  ASSERT_EQ(loop->body.size(), 3u);
  const auto* item = loop->body[0]->as<AssignStmt>();
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(sexpr(*item->targets[0]), "(tuple i j)");
  EXPECT_EQ(sexpr(*item->value), "(tuple ([] $for0_0 $for0) ([] $for0_1 $for0))");
  EXPECT_NE(loop->body[1]->as<IfStmt>()->body[0]->as<BreakStmt>(), nullptr);
  EXPECT_NE(loop->body[2]->as<ContinueStmt>(), nullptr);
  ASSERT_EQ(loop->orelse.size(), 1u);
  EXPECT_NE(loop->orelse[0]->as<PassStmt>(), nullptr);
  const auto* w = fn.body[3]->as<WhileStmt>();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(sexpr(*w->test), "(cmp i < n)");
  ASSERT_EQ(w->orelse.size(), 1u);
  EXPECT_EQ(w->orelse[0]->as<ReturnStmt>()->value, nullptr);
  const auto* one_line = fn.body[4]->as<ForStmt>();
  ASSERT_NE(one_line, nullptr);
  ASSERT_EQ(one_line->body.size(), 1u);
  EXPECT_NE(one_line->body[0]->as<AssignStmt>(), nullptr);
}

TEST(ParserStmt, EnumerateStartIsEvaluatedOnceBeforeTheLoop) {
  auto m = parse_body("    for i, x in enumerate(a, start=s + 1):\n        pass\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_EQ(fn.body.size(), 3u);
  EXPECT_EQ(sexpr(*fn.body[0]->as<AssignStmt>()->targets[0]), "$for0_s0");
  EXPECT_EQ(sexpr(*fn.body[0]->as<AssignStmt>()->value), "(+ s 1)");
  const auto* loop = fn.body[2]->as<ForStmt>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(sexpr(*loop->body[0]->as<AssignStmt>()->value), "(tuple (+ $for0 $for0_s0) ([] $for0_0 $for0))");
}

TEST(ParserStmt, ReturnForms) {
  auto m = parse_body("    if a:\n        return\n    if b:\n        return a, b\n    return (a + 1)\n");
  const FunctionDef& fn = only_function(*m);
  EXPECT_EQ(fn.body[0]->as<IfStmt>()->body[0]->as<ReturnStmt>()->value, nullptr);
  EXPECT_EQ(sexpr(*fn.body[1]->as<IfStmt>()->body[0]->as<ReturnStmt>()->value), "(tuple a b)");
  EXPECT_EQ(sexpr(*fn.body[2]->as<ReturnStmt>()->value), "(+ a 1)");
}

TEST(ParserStmt, SemicolonsAndExpressionStatements) {
  auto m = parse_body("    gpu.syncthreads(); x = 1;\n    print('x', 1)\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_EQ(fn.body.size(), 3u);
  EXPECT_EQ(sexpr(*fn.body[0]->as<ExprStmt>()->value), "(call (. gpu syncthreads))");
  EXPECT_NE(fn.body[1]->as<AssignStmt>(), nullptr);
  EXPECT_EQ(sexpr(*fn.body[2]->as<ExprStmt>()->value), "(call print 'x' 1)");
}

TEST(ParserStmt, SoftKeywordsAreOrdinaryNames) {
  auto m = parse_body("    match = 3\n    match(a, b)\n    match[0] = 1\n    type = case = _ = 2\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_EQ(fn.body.size(), 4u);
  EXPECT_EQ(sexpr(*fn.body[1]->as<ExprStmt>()->value), "(call match a b)");
  EXPECT_EQ(fn.body[3]->as<AssignStmt>()->targets.size(), 3u);
}

TEST(ParserStmt, AnnotationsAreAcceptedAndIgnored) {
  auto m = parse("def f(a: float32[:], n: int) -> None:\n    x: float32 = a[0]\n    return x\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_EQ(fn.params.size(), 2u);
  EXPECT_EQ(fn.params[0].name, "a");
  EXPECT_EQ(fn.params[1].name, "n");
  EXPECT_EQ(fn.params[1].range.begin, (SourceLoc{1, 22}));
  const auto* assign = fn.body[0]->as<AssignStmt>();
  ASSERT_NE(assign, nullptr);
  EXPECT_EQ(sexpr(*assign->targets[0]), "x");
  EXPECT_EQ(sexpr(*assign->value), "([] a 0)");
}

TEST(ParserFunction, DocstringIsKeptOutOfTheBody) {
  auto m = parse("def f(a):\n    \"\"\"Adds one.\n\n    Really.\"\"\"\n    a[0] += 1\n");
  const FunctionDef& fn = only_function(*m);
  ASSERT_TRUE(fn.docstring.has_value());
  EXPECT_EQ(*fn.docstring, "Adds one.\n\n    Really.");
  ASSERT_EQ(fn.body.size(), 1u);
  EXPECT_NE(fn.body[0]->as<AugAssignStmt>(), nullptr);
  // A string that is not the first statement is an ordinary expression statement.
  auto later = parse("def f(a):\n    pass\n    'not a docstring'\n");
  EXPECT_FALSE(only_function(*later).docstring.has_value());
  EXPECT_EQ(only_function(*later).body.size(), 2u);
}

TEST(ParserFunction, DecoratorsAreExpressions) {
  auto m = parse(
      "@gpu.jit\n"
      "def a(x): pass\n"
      "@cuda.jit(device=True)\n"
      "def b(x): pass\n"
      "@jit(\"void(float32[:])\")\n"
      "@other\n"
      "def c(x): pass\n"
      "@cuda.jit([\"void(float32[:])\", \"void(float64[:])\"])\n"
      "def d(x): pass\n");
  ASSERT_EQ(all_errors(*m), std::vector<std::string>{});
  ASSERT_EQ(m->functions.size(), 4u);
  EXPECT_EQ(sexpr(*m->functions[0]->decorators[0]), "(. gpu jit)");
  EXPECT_EQ(sexpr(*m->functions[1]->decorators[0]), "(call (. cuda jit) device=True)");
  ASSERT_EQ(m->functions[2]->decorators.size(), 2u);
  EXPECT_EQ(sexpr(*m->functions[2]->decorators[0]), "(call jit 'void(float32[:])')");
  EXPECT_EQ(sexpr(*m->functions[2]->decorators[1]), "other");
  // numba's list of signatures: a list display is host data in a decorator (it is an error in a body).
  EXPECT_EQ(sexpr(*m->functions[3]->decorators[0]),
            "(call (. cuda jit) (list 'void(float32[:])' 'void(float64[:])'))");
  EXPECT_TRUE(m->functions[3]->errors.all().empty());
  // The function's range starts at `def`, its name range at the name.
  EXPECT_EQ(m->functions[0]->range.begin, (SourceLoc{2, 1}));
  EXPECT_EQ(m->functions[0]->range.end, (SourceLoc{2, 15}));
  EXPECT_EQ(m->functions[0]->name_range.begin, (SourceLoc{2, 5}));
  EXPECT_EQ(m->functions[0]->params[0].name, "x");
}

TEST(ParserFunction, IndentedFunctionTextFromTheShim) {
  auto m = parse(
      "    @gpu.jit\n"
      "    def kernel(a):\n"
      "        i = gpu.grid(1)\n"
      "        a[i] = i\n",
      120);
  const FunctionDef& fn = only_function(*m);
  EXPECT_EQ(fn.name, "kernel");
  EXPECT_EQ(fn.range.begin, (SourceLoc{121, 5}));
  ASSERT_EQ(fn.body.size(), 2u);
  EXPECT_EQ(fn.body[1]->range.begin, (SourceLoc{123, 9}));
  EXPECT_EQ(fn.file, m->file);
}

TEST(ParserModule, Imports) {
  auto m = parse(
      "import gpujit as gpu\n"
      "import numpy, numba.cuda\n"
      "from numba import cuda as c, float32\n"
      "from . import helpers\n"
      "from .pkg.mod import (a,\n    b as bb,)\n"
      "from math import *\n");
  ASSERT_EQ(all_errors(*m), std::vector<std::string>{});
  ASSERT_EQ(m->imports.size(), 8u);
  auto check = [&](size_t i, const char* module, const char* name, const char* alias) {
    EXPECT_EQ(m->imports[i].module, module) << i;
    EXPECT_EQ(m->imports[i].name, name) << i;
    EXPECT_EQ(m->imports[i].alias, alias) << i;
  };
  check(0, "gpujit", "", "gpu");
  check(1, "numpy", "", "numpy");
  check(2, "numba.cuda", "", "numba");  // `import a.b` binds `a`
  check(3, "numba", "cuda", "c");
  check(4, "numba", "float32", "float32");
  check(5, ".", "helpers", "helpers");
  check(6, ".pkg.mod", "a", "a");
  check(7, ".pkg.mod", "b", "bb");
  EXPECT_EQ(m->imports[2].range.begin, (SourceLoc{2, 15}));
}

TEST(ParserModule, RelativeImportWithParenthesizedNames) {
  auto m = parse("from .pkg.mod import (a,\n    b as bb,)\n");
  ASSERT_EQ(m->imports.size(), 2u);
  EXPECT_EQ(m->imports[1].name, "b");
  EXPECT_EQ(m->imports[1].alias, "bb");
}

TEST(ParserModule, Globals) {
  auto m = parse(
      "N = 128\n"
      "SCALE: float = 2.5\n"
      "PAIR = 1, 2\n"
      "TABLE = [1, 2, 3]\n"
      "CONFIG = {'a': 1}\n"
      "F = lambda x: x\n"
      "declared: int\n"
      "a = b = 3\n"
      "NESTED = np.array([[1, 2], (3,)], dtype=f4)\n"
      "SQUARES = [x * x for x in range(3)]\n");
  EXPECT_EQ(all_errors(*m), std::vector<std::string>{});
  ASSERT_EQ(m->globals.size(), 9u);
  EXPECT_EQ(m->globals[0].name, "N");
  EXPECT_EQ(sexpr(*m->globals[0].value), "128");
  EXPECT_EQ(m->globals[0].range.begin, (SourceLoc{1, 1}));
  EXPECT_EQ(m->globals[0].range.end, (SourceLoc{1, 8}));
  EXPECT_EQ(sexpr(*m->globals[1].value), "f2.500000");
  EXPECT_EQ(sexpr(*m->globals[2].value), "(tuple 1 2)");
  // A list display is kept at module level, as the data of np.array([...]) (the CLI evaluates it).
  EXPECT_EQ(sexpr(*m->globals[3].value), "(list 1 2 3)");
  for (size_t i = 4; i < 7; ++i) EXPECT_EQ(m->globals[i].value, nullptr) << m->globals[i].name;
  EXPECT_EQ(m->globals[6].name, "a");
  EXPECT_EQ(sexpr(*m->globals[7].value), "(call (. np array) (list (list 1 2) (tuple 3)) dtype=f4)");
  EXPECT_EQ(m->globals[8].value, nullptr);  // a comprehension is not data
}

TEST(ParserModule, HostCodeIsSkippedSilently) {
  auto m = parse(
      "\"\"\"A script with kernels and host code.\"\"\"\n"
      "import numpy as np\n"
      "class Helper:\n"
      "    def method(self):\n"
      "        return [x * 2 for x in range(3)]\n"
      "\n"
      "@dataclass\n"
      "class Point:\n"
      "    x: int\n"
      "async def fetch():\n"
      "    await thing()\n"
      "try:\n"
      "    import cupy\n"
      "except ImportError:\n"
      "    cupy = None\n"
      "finally:\n"
      "    pass\n"
      "data = {k: v for k, v in zip(a, b)}\n"
      "print(f'{len(data)} items', *data)\n"
      "with open('f') as fh:\n"
      "    fh.read()\n"
      "for i in range(3): print(i)\n"
      "else: pass\n"
      "@gpu.jit\n"
      "def kernel(a):\n"
      "    a[0] = 1\n"
      "if __name__ == \"__main__\":\n"
      "    kernel[1, 1](np.zeros(1))\n"
      "elif True:\n"
      "    pass\n"
      "else:\n"
      "    main(*sys.argv, **kw)\n"
      "match command:\n"
      "    case 'x':\n"
      "        pass\n"
      "x += 1\n");
  EXPECT_EQ(all_errors(*m), std::vector<std::string>{});
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0]->name, "kernel");
  EXPECT_EQ(m->imports.size(), 1u);
  ASSERT_EQ(m->globals.size(), 1u);
  EXPECT_EQ(m->globals[0].name, "data");
}

TEST(ParserModule, HostFunctionWithUnsupportedSyntaxKeepsItsErrors) {
  auto m = parse(
      "def host(xs):\n"
      "    return [x for x in xs]\n"
      "@gpu.jit\n"
      "def kernel(a):\n"
      "    a[0] = 1\n");
  EXPECT_FALSE(m->errors.has_errors());
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->functions[0]->errors.error_count(), 1u);
  EXPECT_FALSE(m->functions[1]->errors.has_errors());
  EXPECT_EQ(m->find_function("kernel"), m->functions[1].get());
  EXPECT_EQ(m->find_function("missing"), nullptr);
}

TEST(ParserModule, LaterDefinitionWins) {
  auto m = parse("def f(a): pass\ndef f(a, b): pass\n");
  ASSERT_NE(m->find_function("f"), nullptr);
  EXPECT_EQ(m->find_function("f")->params.size(), 2u);
}

TEST(ParserModule, UntokenizableFileGivesModuleErrors) {
  auto m = parse("@gpu.jit\ndef f(a):\n    a[0] = 'oops\n");
  EXPECT_TRUE(m->functions.empty());
  EXPECT_EQ(all_errors(*m), std::vector<std::string>{"3:12: unterminated string literal (detected at line 3)"});
  auto dedent = parse("def f(a):\n        x = 1\n    y = 2\n");
  EXPECT_EQ(all_errors(*dedent), std::vector<std::string>{"3:5: unindent does not match any outer indentation level"});
}

TEST(ParserModule, ByteOrderMarkIsIgnored) {
  auto m = parse("\xEF\xBB\xBFimport gpujit as gpu\n");
  ASSERT_EQ(m->imports.size(), 1u);
  EXPECT_EQ(m->imports[0].range.begin, (SourceLoc{1, 8}));
}

TEST(ParserModule, EmptyAndCommentOnlyFiles) {
  EXPECT_TRUE(parse("")->functions.empty());
  auto m = parse("# nothing here\n\n");
  EXPECT_TRUE(m->functions.empty());
  EXPECT_FALSE(m->errors.has_errors());
}

}  // namespace
}  // namespace gpujit
