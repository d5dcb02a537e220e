// The parser: tokens to the AST of frontend/ast.h, by recursive descent over Python's grammar.
//
// A file is parsed the way the CLI meets it: an ordinary Python script with kernels in it. At module level
// the parser keeps imports, `NAME = expr` globals and function definitions, and skips every other statement
// with its indented block (classes, host code, `if __name__ == "__main__":`) without a word. Functions are
// parsed in full; a syntax error or a construct outside the kernel subset inside one goes to that function's
// FunctionDef::errors, and the parser resumes at the next statement, so one parse reports several errors and
// the file's other functions are unaffected. Only a file that cannot be tokenized, or whose structure is
// broken outside any function, fills Module::errors.
//
// Accepted inside functions: positional parameters (annotations accepted and ignored), a docstring, pass,
// assignment (chained, tuple and subscript targets; `x: T = v` with the annotation ignored), augmented
// assignment, if/elif/else, for/else, while/else, break, continue, return, expression statements, and
// expressions with Python's precedence: conditional expressions, or/and/not, chained comparisons including
// is/is not/in/not in, bitwise and shift operators, + - * / // %, unary - + ~, **, calls with keyword
// arguments, attributes, subscripts with tuples and slices, tuples, and int/float/bool/None/str literals.
// Everything else is reported as "... is not supported in kernels".
#pragma once

#include <memory>

#include "frontend/ast.h"
#include "frontend/source.h"

namespace gpujit {

/// Parses a whole file (or the text of one function, starting at file->first_line(), possibly indented).
/// Never throws for user errors; see Module::errors and FunctionDef::errors.
std::unique_ptr<Module> parse_module(SourceFilePtr file);

}  // namespace gpujit
