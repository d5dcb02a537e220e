// SourceFile's line table and the clang-style rendering of diagnostics.
#include <gtest/gtest.h>

#include "frontend/diagnostics.h"
#include "frontend/source.h"
#include "frontend_test_util.h"

namespace gpujit {
namespace {

using test::make_source;

TEST(SourceFile, LinesAreNumberedFromFirstLine) {
  SourceFile f("k.py", "def f():\n    pass\n", 40);
  EXPECT_EQ(f.line_count(), 2u);
  EXPECT_EQ(f.line_text(40), "def f():");
  EXPECT_EQ(f.line_text(41), "    pass");
  EXPECT_EQ(f.line_text(39), "");
  EXPECT_EQ(f.line_text(42), "");
}

TEST(SourceFile, LastLineWithoutNewlineAndCrLf) {
  SourceFile f("k.py", "a\r\nb");
  EXPECT_EQ(f.line_count(), 2u);
  EXPECT_EQ(f.line_text(1), "a");
  EXPECT_EQ(f.line_text(2), "b");
}

TEST(SourceFile, EmptyTextHasOneEmptyLine) {
  SourceFile f("k.py", "");
  EXPECT_EQ(f.line_count(), 1u);
  EXPECT_EQ(f.line_text(1), "");
}

TEST(Diagnostics, CountsErrorsOnlyAndKeepsOrder) {
  auto file = make_source("x\n");
  Diagnostics d;
  d.warning(file, {{1, 1}, {1, 2}}, "w");
  EXPECT_FALSE(d.has_errors());
  EXPECT_EQ(d.first_error(), nullptr);
  d.error(file, {{1, 1}, {1, 2}}, "first");
  d.note(file, {{1, 1}, {1, 2}}, "n");
  d.error(file, {{1, 1}, {1, 2}}, "second");
  EXPECT_EQ(d.error_count(), 2u);
  ASSERT_NE(d.first_error(), nullptr);
  EXPECT_EQ(d.first_error()->message, "first");
  Diagnostics other;
  other.append(d);
  EXPECT_EQ(other.error_count(), 2u);
  EXPECT_EQ(other.all().size(), 4u);
}

TEST(Diagnostics, RendersCaretUnderRange) {
  auto file = make_source("def f(a):\n    c = a + 1\n");
  Diagnostic d{Severity::Error, {{2, 9}, {2, 14}}, "cannot add 'float32[:]' and 'int64'", file};
  EXPECT_EQ(render_diagnostic(d),
            "kernel.py:2:9: error: cannot add 'float32[:]' and 'int64'\n"
            "    c = a + 1\n"
            "        ^~~~~\n");
}

TEST(Diagnostics, SingleCharacterAndEmptyRangesGetOneCaret) {
  auto file = make_source("x = 1\n");
  EXPECT_EQ(render_diagnostic({Severity::Warning, {{1, 3}, {1, 4}}, "w", file}),
            "kernel.py:1:3: warning: w\nx = 1\n  ^\n");
  EXPECT_EQ(render_diagnostic({Severity::Note, {{1, 5}, {1, 5}}, "n", file}),
            "kernel.py:1:5: note: n\nx = 1\n    ^\n");
}

TEST(Diagnostics, MultiLineRangeUnderlinesToEndOfFirstLine) {
  auto file = make_source("y = f(a,\n      b)\n");
  EXPECT_EQ(render_diagnostic({Severity::Error, {{1, 5}, {2, 9}}, "bad call", file}),
            "kernel.py:1:5: error: bad call\ny = f(a,\n    ^~~~\n");
}

TEST(Diagnostics, TabsBeforeTheCaretAreKept) {
  auto file = make_source("\tx = y\n");
  EXPECT_EQ(render_diagnostic({Severity::Error, {{1, 6}, {1, 7}}, "unknown name 'y'", file}),
            "kernel.py:1:6: error: unknown name 'y'\n\tx = y\n\t    ^\n");
}

TEST(Diagnostics, FirstLineOffsetSelectsTheRightSourceLine) {
  auto file = make_source("def f():\n    pass\n    x = y\n", 40);
  EXPECT_EQ(render_diagnostic({Severity::Error, {{42, 9}, {42, 10}}, "unknown name 'y'", file}),
            "kernel.py:42:9: error: unknown name 'y'\n    x = y\n        ^\n");
}

TEST(Diagnostics, WithoutPositionOrFile) {
  auto file = make_source("x\n");
  EXPECT_EQ(render_diagnostic({Severity::Error, {}, "bad signature 'f(int)'", file}),
            "kernel.py: error: bad signature 'f(int)'\n");
  EXPECT_EQ(render_diagnostic({Severity::Error, {}, "no file", nullptr}), "error: no file\n");
  // A position past the end of the text still renders its header.
  EXPECT_EQ(render_diagnostic({Severity::Error, {{9, 1}, {9, 2}}, "eof", file}), "kernel.py:9:1: error: eof\n");
}

TEST(Diagnostics, RenderConcatenatesAll) {
  auto file = make_source("a\nb\n");
  Diagnostics d;
  d.error(file, {{1, 1}, {1, 2}}, "one");
  d.error(file, {{2, 1}, {2, 2}}, "two");
  EXPECT_EQ(d.render(), "kernel.py:1:1: error: one\na\n^\nkernel.py:2:1: error: two\nb\n^\n");
}

}  // namespace
}  // namespace gpujit
