// Small helpers of the typed-function side tables (ir/typed_function.h): constants and their printing,
// global-value constructors, and the checked accessors codegen uses.
#include "ir/typed_function.h"

#include <fmt/format.h>

#include <cmath>

#include "ir/enum_type.h"

namespace gpujit {

Type ConstValue::type() const {
  if (enum_class) return enum_class->member_type();
  switch (kind) {
    case Kind::Int:
    case Kind::Float:
      return Type::scalar_of(scalar);
    case Kind::Bool:
      return Type::scalar_of(ScalarKind::Bool);
    case Kind::None:
      return Type::none();
    case Kind::Tuple: {
      std::vector<Type> elts;
      for (const ConstValue& e : elements) elts.push_back(e.type());
      return Type::tuple_of(std::move(elts));
    }
    case Kind::String: {
      if (is_bytes()) return Type::charseq_of(ScalarKind::UInt8, uint32_t(s.size()));
      uint32_t code_points = 0;
      for (char c : s) code_points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // UTF-8 lead bytes
      return Type::charseq_of(ScalarKind::UInt32, code_points);
    }
  }
  return Type::invalid();
}

std::string ConstValue::str() const {
  if (enum_class) {  // Color.red: the first name with this value (an alias names its member)
    ConstValue plain = *this;
    plain.enum_class = nullptr;
    const std::string value = plain.str();
    for (const auto& [name, member] : enum_class->members) {
      ConstValue m = member;
      m.enum_class = nullptr;
      if (m.str() == value) return enum_class->name + "." + name;
    }
    return value;
  }
  switch (kind) {
    case Kind::Int:
      if (is_unsigned(scalar)) return fmt::format("{}", static_cast<uint64_t>(i));
      return fmt::format("{}", i);
    case Kind::Float: {
      if (std::isnan(f)) return "nan";
      if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
      // fmt's "{}" is the shortest round-trip text; Python always shows a '.' or an exponent.
      std::string s = fmt::format("{}", f);
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::Bool:
      return i ? "True" : "False";
    case Kind::None:
      return "None";
    case Kind::String:
      return fmt::format("{}'{}'", is_bytes() ? "b" : "", s);
    case Kind::Tuple: {
      std::string out = "(";
      for (size_t k = 0; k < elements.size(); ++k) {
        if (k) out += ", ";
        out += elements[k].str();
      }
      if (elements.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "?";
}

ConstValue ConstValue::of_int(int64_t v, ScalarKind k) {
  ConstValue c;
  c.kind = Kind::Int;
  c.scalar = k;
  c.i = v;
  return c;
}

ConstValue ConstValue::of_float(double v, ScalarKind k) {
  ConstValue c;
  c.kind = Kind::Float;
  c.scalar = k;
  c.f = v;
  return c;
}

ConstValue ConstValue::of_bool(bool v) {
  ConstValue c;
  c.kind = Kind::Bool;
  c.scalar = ScalarKind::Bool;
  c.i = v ? 1 : 0;
  return c;
}

ConstValue ConstValue::of_tuple(std::vector<ConstValue> elts) {
  ConstValue c;
  c.kind = Kind::Tuple;
  c.elements = std::move(elts);
  return c;
}

ConstValue ConstValue::of_string(std::string text, bool bytes) {
  ConstValue c;
  c.kind = Kind::String;
  c.scalar = bytes ? ScalarKind::UInt8 : ScalarKind::UInt32;
  c.s = std::move(text);
  return c;
}

GlobalValue GlobalValue::of_constant(ConstValue c) {
  GlobalValue g;
  g.kind = Kind::Constant;
  g.constant = std::move(c);
  return g;
}

GlobalValue GlobalValue::of_module(std::string canonical_name) {
  GlobalValue g;
  g.kind = Kind::Module;
  g.module_name = std::move(canonical_name);
  return g;
}

GlobalValue GlobalValue::of_dtype(ScalarKind k) {
  GlobalValue g;
  g.kind = Kind::DType;
  g.dtype = k;
  return g;
}

GlobalValue GlobalValue::of_function(const FunctionDef* f) {
  GlobalValue g;
  g.kind = Kind::DeviceFunction;
  g.function = f;
  return g;
}

GlobalValue GlobalValue::of_member(std::string module, std::string member) {
  GlobalValue g;
  g.kind = Kind::ModuleMember;
  g.module_name = std::move(module);
  g.member = std::move(member);
  return g;
}

GlobalValue GlobalValue::of_constants(std::map<std::string, ConstValue> members) {
  GlobalValue g;
  g.kind = Kind::Constants;
  g.members = std::move(members);
  return g;
}

GlobalValue GlobalValue::of_unsupported(std::string reason) {
  GlobalValue g;
  g.kind = Kind::Unsupported;
  g.reason = std::move(reason);
  return g;
}

const Type& TypedFunction::type_of(const Expr* e) const {
  auto it = expr_types.find(e);
  if (it == expr_types.end()) {
    throw InternalError(fmt::format("no type recorded for the expression at {}:{} in '{}'",
                                    e->range.begin.line, e->range.begin.col, name));
  }
  return it->second;
}

const Symbol* TypedFunction::symbol_of(const Expr* e) const {
  auto it = symbols.find(e);
  return it == symbols.end() ? nullptr : &it->second;
}

const ConstValue* TypedFunction::constant_of(const Expr* e) const {
  auto it = constants.find(e);
  return it == constants.end() ? nullptr : &it->second;
}

}  // namespace gpujit
