// Which integer values of a function can never be negative, so that an array index made of them needs no
// Python negative-index wrap (a[i] with i < 0 reads a[i + n]): codegen emits the wrap for every other signed
// index. LLVM removes some wraps itself, from the special registers' ranges, but not those whose operand it
// cannot bound (a loop counter times a constant plus a thread index, say), and it spends time on each one it
// does remove.
//
// A local variable is never negative when every assignment to it in the function is (all locals start at
// zero): `i = cuda.grid(1)`, `x, y = cuda.grid(2)`, `h, w = a.shape`, `for k in range(n)`, `s = 0` then
// `s += j`. The analysis is optimistic and flow-insensitive: it assumes every integer local is never negative
// and drops, until nothing changes, each one that some assignment could make negative given what is still
// assumed. Parameters are never assumed anything. An expression is never negative when it is a non-negative
// constant, such a local, a thread or block index or extent, grid()/gridsize(), len(), an array's size or
// shape[k], or +, *, //, %, &, |, ^, >>, <<, ** of such operands (min of such operands; max of one).
//
// Integer overflow is the one way such a value turns negative; an index that overflowed was out of bounds
// before it wrapped around, with or without the negative-index wrap, and a bounds check (debug=True) still
// rejects it: the check compares the index as unsigned.
#pragma once

#include <set>
#include <string>

#include "frontend/ast.h"

namespace gpujit {

struct TypedFunction;

/// The local variables of `fn` (parameters excluded) that only ever hold non-negative integers.
std::set<std::string> find_non_negative_locals(const TypedFunction& fn);

/// Whether the integer expression `e` of `fn` is never negative, given fn.non_negative_locals.
bool never_negative(const TypedFunction& fn, const Expr& e);

}  // namespace gpujit
