// The operator module's rows (see operator_functions.h).
#include "ir/operator_functions.h"

#include <deque>

#include "frontend/ast.h"

namespace gpujit {

namespace {

struct Table {
  std::deque<BuiltinInfo> rows;

  void add(const char* name, BuiltinTyping typing, uint8_t op, int8_t nargs, const char* doc) {
    rows.push_back({BuiltinId::OperatorCall, BuiltinScope::Operator, name, nullptr, true, nargs, nargs, typing,
                    BuiltinLowering::Operator, nullptr, nullptr, false, BuiltinReg::None, op, 0, true, doc});
  }

  Table() {
    using B = BinOpKind;
    using C = CmpOpKind;
    using U = UnaryOpKind;
    const struct {
      const char* name;
      const char* inplace;
      B op;
    } binary[] = {{"add", "iadd", B::Add},           {"sub", "isub", B::Sub},
                  {"mul", "imul", B::Mul},           {"truediv", "itruediv", B::Div},
                  {"floordiv", "ifloordiv", B::FloorDiv}, {"mod", "imod", B::Mod},
                  {"pow", "ipow", B::Pow},           {"lshift", "ilshift", B::LShift},
                  {"rshift", "irshift", B::RShift},  {"and_", "iand", B::BitAnd},
                  {"or_", "ior", B::BitOr},          {"xor", "ixor", B::BitXor}};
    for (const auto& b : binary) {
      add(b.name, BuiltinTyping::OperatorBinary, static_cast<uint8_t>(b.op), 2, "the binary operator it names");
      add(b.inplace, BuiltinTyping::OperatorBinary, static_cast<uint8_t>(b.op), 2, "the binary operator it names");
    }
    const struct {
      const char* name;
      C op;
    } compare[] = {{"eq", C::Eq}, {"ne", C::NotEq}, {"lt", C::Lt}, {"le", C::LtE}, {"gt", C::Gt}, {"ge", C::GtE}};
    for (const auto& c : compare)
      add(c.name, BuiltinTyping::OperatorCompare, static_cast<uint8_t>(c.op), 2, "the comparison it names");
    const struct {
      const char* name;
      U op;
    } unary[] = {{"neg", U::Neg}, {"pos", U::Pos}, {"invert", U::Invert}, {"inv", U::Invert}, {"not_", U::Not}};
    for (const auto& u : unary)
      add(u.name, BuiltinTyping::OperatorUnary, static_cast<uint8_t>(u.op), 1, "the unary operator it names");
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_operator_builtin(std::string_view name) {
  for (const BuiltinInfo& r : table().rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::vector<std::string_view> operator_names() {
  std::vector<std::string_view> names;
  for (const BuiltinInfo& r : table().rows) names.emplace_back(r.name);
  return names;
}

}  // namespace gpujit
