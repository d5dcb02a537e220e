// The binding's answer to semantic analysis' overload queries (ir/overloads.h): Python's typing functions.
//
// Each query goes to gpujit._overloads.resolve(kind, key, argument types, constants, keyword names), under
// the GIL (a compile runs without it). The types are described as small tuples that _overloads.py turns into numba's
// type objects (numba installed) or gpujit's own:
//   ("scalar", name)   ("array", dtype, ndim, layout "C" | "A")   ("record", numpy dtype)   ("tuple", [types])
//   ("none",)          ("other", text)
// where an array's dtype is a scalar's name or a record's NumPy dtype. The answer is a device function (a
// gpujit Dispatcher, whose parsed source the binding keeps), None when every typing function declines, or a
// string saying what failed.
#pragma once

#include <memory>
#include <vector>

#include "ir/overloads.h"
#include "kernel_source.h"

namespace gpujit::py {

class PyOverloadResolver : public OverloadResolver {
 public:
  explicit PyOverloadResolver(SourceResolver source) : source_(source) {}
  OverloadAnswer resolve(const OverloadQuery& query) override;
  bool declares_member(const std::string& name, OverloadQuery::Kind kind) override;
  /// Whether the compile asked for an implementation: its code then depends on Python functions that the
  /// disk cache's key does not cover, so it is not written there.
  bool used() const { return used_; }

 private:
  SourceResolver source_;
  std::vector<std::shared_ptr<const KernelSource>> keep_;  // the implementations' parsed sources
  bool used_ = false;
};

/// The Python description of a type, as above.
pyb::object describe_type(const Type& t);

}  // namespace gpujit::py
