// The hook through which semantic analysis asks its embedder for code it cannot type itself: the
// implementation of a function overloaded with `@overload`, of a method (`@overload_method`) or of an attribute
// (`@overload_attribute`) of a type, for the argument types of one call.
//
// Semantic analysis knows no Python: it only knows that a free name is Overloaded (GlobalValue::Kind) and,
// for members, that the embedder declares a member of that name. The embedder (python/src/overloads.cpp)
// runs the user's typing functions and answers with a function definition, parsed from the implementation's
// source, and that implementation's own free names. The analysis compiles the answer as a device function
// call, specialised and cached like any other; the implementation's names are its environment (and that of
// the functions it calls), not merged into the kernel's, so two implementations that close over the same name
// with different values stay apart.
//
// Invariants: the resolver answers the same query the same way within one compile (the analysis may ask
// twice: once while inferring, once while checking; it keeps the first answer), and every FunctionDef it
// returns stays alive until the compile returns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/typed_function.h"
#include "ir/types.h"

namespace gpujit {

/// One call the analysis cannot type: what is called and with what.
struct OverloadQuery {
  enum class Kind : uint8_t {
    Function,   // a call of an Overloaded global: `key` is its GlobalValue::member
    Method,     // receiver.key(args...): `args` starts with the receiver
    Attribute,  // receiver.key: `args` is the receiver alone
  };
  Kind kind = Kind::Function;
  std::string key;
  std::vector<Type> args;
  /// The arguments whose value is known at compile time (numba types them as literals where a typing
  /// function asks for literals); nullopt for the others.
  std::vector<std::optional<ConstValue>> constants;
  /// The arguments that are functions (an inner `def`, a device function), by their name; "" for values.
  /// A function passes at compile time: its `args` entry is None, and the implementation is specialised on
  /// it, as numba's signature holds the function's type.
  std::vector<std::string> functions;
  /// The last keywords.size() arguments are passed by these names (f(x, k=y)).
  std::vector<std::string> keywords;
};

/// The embedder's answer.
struct OverloadAnswer {
  /// The implementation, a device function taking the query's arguments (the receiver first); null when
  /// no typing function accepts these types.
  const FunctionDef* function = nullptr;
  /// The implementation's free names.
  GlobalEnv globals;
  /// Why there is no implementation, when something failed (a typing function raised): its message.
  std::string error;
};

/// Implemented by the embedder; a compile request carries one (compiler/compiler.h).
class OverloadResolver {
 public:
  virtual ~OverloadResolver() = default;
  virtual OverloadAnswer resolve(const OverloadQuery& query) = 0;
  /// Whether some @overload_method (kind Method) or @overload_attribute (kind Attribute) declares a member
  /// of this name, for any type: a quick test before the analysis builds a query for an attribute.
  virtual bool declares_member(const std::string& name, OverloadQuery::Kind kind) = 0;
};

}  // namespace gpujit
