// Overload queries answered by Python's typing functions (see overloads.h).
#include "overloads.h"

#include "dtypes.h"
#include "runtime/device_array.h"

namespace gpujit::py {
namespace {

pyb::object record_dtype(const RecordType* r) {
  rt::ArrayView view;  // numpy_dtype_of knows each record's NumPy dtype by the view's element
  view.record = r;
  return numpy_dtype_of(view);
}

pyb::object describe_constant(const ConstValue& c) {
  switch (c.kind) {
    case ConstValue::Kind::Int:
      if (is_unsigned(c.scalar)) return pyb::int_(uint64_t(c.i));
      return pyb::int_(c.i);
    case ConstValue::Kind::Float:
      return pyb::float_(c.f);
    case ConstValue::Kind::Bool:
      return pyb::bool_(c.i != 0);
    case ConstValue::Kind::String:
      if (c.is_bytes()) return pyb::bytes(c.s);
      return pyb::str(c.s);
    case ConstValue::Kind::Tuple: {
      pyb::list out;
      for (const ConstValue& e : c.elements) out.append(describe_constant(e));
      return pyb::tuple(out);
    }
    case ConstValue::Kind::None:
      break;
  }
  return pyb::none();
}

const char* kind_name(OverloadQuery::Kind k) {
  switch (k) {
    case OverloadQuery::Kind::Function:
      return "function";
    case OverloadQuery::Kind::Method:
      return "method";
    case OverloadQuery::Kind::Attribute:
      return "attribute";
  }
  return "function";
}

}  // namespace

pyb::object describe_type(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Scalar:
      return pyb::make_tuple("scalar", scalar_name(t.scalar));
    case Type::Kind::Array: {
      pyb::object dtype = t.record ? record_dtype(t.record) : pyb::object(pyb::str(scalar_name(t.scalar)));
      return pyb::make_tuple("array", dtype, int(t.ndim), layout_letter(t.layout));
    }
    case Type::Kind::Record:
      return pyb::make_tuple("record", record_dtype(t.record));
    case Type::Kind::Tuple: {
      pyb::list elts;
      for (const Type& e : t.elements) elts.append(describe_type(e));
      return pyb::make_tuple("tuple", elts);
    }
    case Type::Kind::None:
      return pyb::make_tuple("none");
    default:
      return pyb::make_tuple("other", t.str());
  }
}

OverloadAnswer PyOverloadResolver::resolve(const OverloadQuery& q) {
  pyb::gil_scoped_acquire gil;
  used_ = true;
  OverloadAnswer answer;
  try {
    pyb::list types, constants;
    for (size_t i = 0; i < q.args.size(); ++i) {
      const bool function = i < q.functions.size() && !q.functions[i].empty();
      types.append(function ? pyb::make_tuple("function", q.functions[i]) : describe_type(q.args[i]));
      const bool known = i < q.constants.size() && q.constants[i];
      constants.append(known ? pyb::tuple(pyb::make_tuple(describe_constant(*q.constants[i]))) : pyb::tuple());
    }
    pyb::list keywords;
    for (const std::string& k : q.keywords) keywords.append(k);
    pyb::object impl = pyb::module_::import("gpujit._overloads")
                           .attr("resolve")(kind_name(q.kind), q.key, types, constants, keywords);
    if (impl.is_none()) return answer;
    if (pyb::isinstance<pyb::str>(impl)) {
      answer.error = impl.cast<std::string>();
      return answer;
    }
    std::shared_ptr<const KernelSource> src = source_(impl.ptr());
    answer.function = src->module->find_function(src->name);
    answer.globals = src->globals;
    keep_.push_back(std::move(src));
  } catch (pyb::error_already_set& e) {
    // A typing function that raised, or an implementation whose source cannot be read: the compile's error.
    answer = OverloadAnswer{};
    answer.error = e.what();
  } catch (const std::exception& e) {
    answer = OverloadAnswer{};
    answer.error = e.what();
  }
  return answer;
}

bool PyOverloadResolver::declares_member(const std::string& name, OverloadQuery::Kind kind) {
  pyb::gil_scoped_acquire gil;
  try {
    return pyb::module_::import("gpujit._overloads").attr("declares")(kind_name(kind), name).cast<bool>();
  } catch (pyb::error_already_set&) {
    return false;
  }
}

}  // namespace gpujit::py
