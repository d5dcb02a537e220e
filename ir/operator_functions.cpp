// The operator module's rows (see operator_functions.h).
#include "ir/operator_functions.h"

#include <deque>

#include "frontend/ast.h"

namespace gpujit {

namespace {

struct Table {
  std::deque<BuiltinInfo> rows;
  std::deque<BuiltinInfo> numpy_rows;  // np.add ... as the operator rows they copy, under NumPy's names

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

    // NumPy's ufuncs that are a Python operator on numbers: np.add(a, b) is a + b, np.less(a, b) a < b.
    const struct {
      const char* numpy;
      const char* op;
    } numpy[] = {
        {"add", "add"},           {"subtract", "sub"},        {"multiply", "mul"},
        {"divide", "truediv"},    {"true_divide", "truediv"}, {"floor_divide", "floordiv"},
        {"remainder", "mod"},     {"mod", "mod"},             {"negative", "neg"},
        {"positive", "pos"},      {"invert", "invert"},       {"bitwise_not", "invert"},
        {"bitwise_and", "and_"},  {"bitwise_or", "or_"},      {"bitwise_xor", "xor"},
        {"left_shift", "lshift"}, {"right_shift", "rshift"},  {"equal", "eq"},
        {"not_equal", "ne"},      {"less", "lt"},             {"less_equal", "le"},
        {"greater", "gt"},        {"greater_equal", "ge"},    {"logical_not", "not_"},
    };
    for (const auto& n : numpy) {
      for (const BuiltinInfo& r : rows) {
        if (std::string_view(r.name) != n.op) continue;
        BuiltinInfo copy = r;
        copy.scope = BuiltinScope::Numpy;
        copy.name = n.numpy;
        copy.doc = "the operator of the same name";
        numpy_rows.push_back(copy);
      }
    }
    // np.logical_and/or/xor: the truth of each operand, combined (bool).
    const struct {
      const char* numpy;
      B op;
    } logical[] = {{"logical_and", B::BitAnd}, {"logical_or", B::BitOr}, {"logical_xor", B::BitXor}};
    for (const auto& l : logical) {
      numpy_rows.push_back({BuiltinId::OperatorCall, BuiltinScope::Numpy, l.numpy, nullptr, true, 2, 2,
                            BuiltinTyping::LogicalBinary, BuiltinLowering::Operator, nullptr, nullptr, false,
                            BuiltinReg::None, static_cast<uint8_t>(l.op), 0, true,
                            "the truth values of both operands, combined (bool)"});
    }
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

const BuiltinInfo* find_numpy_operator(std::string_view name) {
  for (const BuiltinInfo& r : table().numpy_rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::vector<std::string_view> numpy_operator_names() {
  std::vector<std::string_view> names;
  for (const BuiltinInfo& r : table().numpy_rows) names.emplace_back(r.name);
  return names;
}

std::vector<std::string_view> operator_names() {
  std::vector<std::string_view> names;
  for (const BuiltinInfo& r : table().rows) names.emplace_back(r.name);
  return names;
}

}  // namespace gpujit
