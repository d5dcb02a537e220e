// Operator spellings and module lookups for the AST (frontend/ast.h). The spellings are Python's, so
// diagnostics and dumps read like the user's source.
#include "frontend/ast.h"

namespace gpujit {

const char* to_string(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::Neg: return "-";
    case UnaryOpKind::Pos: return "+";
    case UnaryOpKind::Invert: return "~";
    case UnaryOpKind::Not: return "not";
  }
  throw InternalError("unknown unary operator");
}

const char* to_string(BinOpKind op) {
  switch (op) {
    case BinOpKind::Add: return "+";
    case BinOpKind::Sub: return "-";
    case BinOpKind::Mul: return "*";
    case BinOpKind::Div: return "/";
    case BinOpKind::FloorDiv: return "//";
    case BinOpKind::Mod: return "%";
    case BinOpKind::Pow: return "**";
    case BinOpKind::LShift: return "<<";
    case BinOpKind::RShift: return ">>";
    case BinOpKind::BitAnd: return "&";
    case BinOpKind::BitOr: return "|";
    case BinOpKind::BitXor: return "^";
  }
  throw InternalError("unknown binary operator");
}

const char* to_string(BoolOpKind op) {
  switch (op) {
    case BoolOpKind::And: return "and";
    case BoolOpKind::Or: return "or";
  }
  throw InternalError("unknown boolean operator");
}

const char* to_string(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Eq: return "==";
    case CmpOpKind::NotEq: return "!=";
    case CmpOpKind::Lt: return "<";
    case CmpOpKind::LtE: return "<=";
    case CmpOpKind::Gt: return ">";
    case CmpOpKind::GtE: return ">=";
    case CmpOpKind::Is: return "is";
    case CmpOpKind::IsNot: return "is not";
    case CmpOpKind::In: return "in";
    case CmpOpKind::NotIn: return "not in";
  }
  throw InternalError("unknown comparison operator");
}

const FunctionDef* Module::find_function(const std::string& name) const {
  // The last definition wins, as in Python, where a later `def` rebinds the name.
  for (auto it = functions.rbegin(); it != functions.rend(); ++it) {
    if ((*it)->name == name) return it->get();
  }
  return nullptr;
}

}  // namespace gpujit
