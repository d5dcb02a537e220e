// Building a kernel's compile input from the Python shim's description (see kernel_source.h).
#include "kernel_source.h"

#include <fmt/format.h>

#include "dtypes.h"
#include "enums.h"
#include "errors.h"
#include "link_files.h"

namespace gpujit::py {
namespace {

ScalarKind dtype_named(pyb::handle name) {
  auto k = parse_scalar_name(name.cast<std::string>());
  if (!k) throw pyb::value_error("unknown dtype name " + pyb::repr(name).cast<std::string>());
  return *k;
}

/// Sets g.dtype from a dtype name, or g.record from a structured NumPy dtype (_source.py passes those whole).
void set_element(GlobalValue& g, pyb::handle dtype) {
  if (pyb::isinstance<pyb::str>(dtype)) {
    g.dtype = dtype_named(dtype);
  } else {
    g.record = record_from_numpy(dtype);  // throws TypeError naming a field kernels cannot use
    if (!g.record) throw pyb::value_error("not a structured dtype: " + pyb::repr(dtype).cast<std::string>());
  }
}

ConstValue constant_of(const pyb::tuple& d) {
  std::string tag = d[0].cast<std::string>();
  if (tag == "int") {
    ScalarKind k = d[2].is_none() ? ScalarKind::Int64 : dtype_named(d[2]);
    // Unsigned values keep their bits in the int64 (ConstValue's convention).
    int64_t v = is_unsigned(k) ? int64_t(d[1].cast<uint64_t>()) : d[1].cast<int64_t>();
    return ConstValue::of_int(v, k);
  }
  if (tag == "float") {
    return ConstValue::of_float(d[1].cast<double>(),
                                d[2].is_none() ? ScalarKind::Float64 : dtype_named(d[2]));
  }
  if (tag == "bool") return ConstValue::of_bool(d[1].cast<bool>());
  if (tag == "str") return ConstValue::of_string(d[1].cast<std::string>(), false);
  if (tag == "bytes") return ConstValue::of_string(d[1].cast<std::string>(), true);
  if (tag == "none") return ConstValue{};
  if (tag == "enum_member") {  // ("enum_member", member): a constant of its class's type (enums.h)
    const EnumType& e = enum_type_of(pyb::type::handle_of(d[1]));
    return *e.find(d[1].attr("_name_").cast<std::string>());
  }
  if (tag == "tuple") {
    std::vector<ConstValue> elts;
    for (pyb::handle e : d[1]) elts.push_back(constant_of(pyb::reinterpret_borrow<pyb::tuple>(e)));
    return ConstValue::of_tuple(std::move(elts));
  }
  throw pyb::value_error("not a constant description: " + pyb::repr(d).cast<std::string>());
}

// ("array", dtype, shape, bytes in C order): a NumPy array the kernel reads from constant memory.
GlobalValue const_array_of(const pyb::tuple& d) {
  GlobalValue g;
  g.kind = GlobalValue::Kind::ConstArray;
  set_element(g, d[1]);
  for (pyb::handle s : d[2]) g.shape.push_back(s.cast<int64_t>());
  std::string bytes = d[3].cast<std::string>();
  g.bytes.assign(bytes.begin(), bytes.end());
  return g;
}

}  // namespace

std::shared_ptr<KernelSource> parse_kernel_source(const std::string& text, const std::string& filename,
                                                  unsigned first_line, const std::string& name) {
  auto src = std::make_shared<KernelSource>();
  src->name = name;
  src->module = parse_source(filename, text, first_line);
  if (src->module->errors.has_errors()) raise_compile_error(src->module->errors);
  if (!src->module->find_function(name))
    throw pyb::value_error("the source of '" + name + "' does not define it");
  return src;
}

void fill_globals(KernelSource& src, pyb::handle globals, SourceResolver resolve) {
  std::vector<std::shared_ptr<const KernelSource>> callees;
  for (pyb::handle item : globals) {
    auto pair = pyb::reinterpret_borrow<pyb::tuple>(item);
    std::string gname = pair[0].cast<std::string>();
    auto d = pyb::reinterpret_borrow<pyb::tuple>(pair[1]);
    std::string tag = d[0].cast<std::string>();
    try {
      GlobalValue g;
      if (tag == "module") {
        g = GlobalValue::of_module(d[1].cast<std::string>());
      } else if (tag == "member") {
        g = GlobalValue::of_member(d[1].cast<std::string>(), d[2].cast<std::string>());
      } else if (tag == "dtype") {
        g.kind = GlobalValue::Kind::DType;
        set_element(g, d[1]);
      } else if (tag == "constants") {
        // ("constants", ((name, description), ...)): a class of constants, an IntEnum
        std::map<std::string, ConstValue> members;
        for (pyb::handle m : d[1]) {
          auto member = pyb::reinterpret_borrow<pyb::tuple>(m);
          members.emplace(member[0].cast<std::string>(),
                          constant_of(pyb::reinterpret_borrow<pyb::tuple>(member[1])));
        }
        g = GlobalValue::of_constants(std::move(members));
      } else if (tag == "enum") {
        // ("enum", class): an Enum class, a class of constants whose members are typed by it (enums.h)
        const EnumType& e = enum_type_of(d[1]);
        g = GlobalValue::of_constants(std::map<std::string, ConstValue>(e.members.begin(), e.members.end()));
      } else if (tag == "namespace") {
        // ("namespace", (attribute, ...)): a module of the user's; each attribute the kernel names is the
        // global "name.attribute", described on its own.
        g = GlobalValue::of_constants({});
        for (pyb::handle a : d[1]) g.element_globals.push_back(a.cast<std::string>());
      } else if (tag == "exception") {
        // ("exception", reference): an exception class, raised by the reference python/gpujit/_exceptions.py
        // resolves
        g.kind = GlobalValue::Kind::ExceptionClass;
        g.member = d[1].cast<std::string>();
      } else if (tag == "overloaded") {
        // ("overloaded", key): a function with @overload implementations, resolved per call (overloads.h)
        g.kind = GlobalValue::Kind::Overloaded;
        g.member = d[1].cast<std::string>();
      } else if (tag == "extern") {
        // ("extern", name, signature, abi, link inputs): a declare_device function (link_files.h)
        g.kind = GlobalValue::Kind::ExternFunction;
        g.extern_fn = extern_function_of(d);
      } else if (tag == "unsupported") {
        g = GlobalValue::of_unsupported(d[1].cast<std::string>());
      } else if (tag == "function") {
        std::shared_ptr<const KernelSource> callee = resolve(d[1].ptr());
        g = GlobalValue::of_function(callee->module->find_function(callee->name));
        // ("function", dispatcher, (signature text, ...)[, inline, forceinline]): the explicit signatures a call
        // converts to.
        if (d.size() > 2) {
          for (pyb::handle t : d[2]) {
            std::string text = t.cast<std::string>(), error;
            std::optional<Signature> sig = parse_signature(text, &error);
            if (!sig) throw pyb::value_error("device function signature '" + text + "': " + error);
            g.signatures.push_back(std::move(*sig));
          }
        }
        // ("function", dispatcher, signatures, inline, forceinline): the shim decided jit(inline=...) for this
        // caller.
        if (d.size() >= 5) {
          g.inline_always = d[3].cast<bool>();
          g.force_inline = d[4].cast<bool>();
        }
        callees.push_back(std::move(callee));
      } else if (tag == "device_array") {
        // ("device_array", dtype name, shape, strides in bytes, address, the object to keep alive)
        g.kind = GlobalValue::Kind::DeviceArray;
        set_element(g, d[1]);
        for (pyb::handle s : d[2]) g.shape.push_back(s.cast<int64_t>());
        for (pyb::handle s : d[3]) g.strides.push_back(s.cast<int64_t>());
        g.address = d[4].cast<uint64_t>();
        src.captured.push_back(pyb::reinterpret_borrow<pyb::object>(d[5]));
      } else if (tag == "array") {
        g = const_array_of(d);
      } else if (tag == "array_tuple") {
        // ("array_tuple", (array description, ...)): each array is a global of its own, named so that no
        // Python name can clash with it.
        g.kind = GlobalValue::Kind::ArrayTuple;
        size_t k = 0;
        for (pyb::handle e : d[1]) {
          std::string element = fmt::format("{}[{}]", gname, k++);
          src.globals[element] = const_array_of(pyb::reinterpret_borrow<pyb::tuple>(e));
          g.element_globals.push_back(element);
        }
      } else {
        g = GlobalValue::of_constant(constant_of(d));
      }
      src.globals[gname] = std::move(g);
    } catch (const pyb::type_error& e) {
      // A structured dtype with a field kernels cannot hold: an error only where the kernel uses the name.
      src.globals[gname] = GlobalValue::of_unsupported(e.what());
    }
  }
  for (const auto& callee : callees) {
    if (callee.get() == &src) continue;  // a function calling itself
    src.extra_modules.push_back(callee->module);
    src.extra_modules.insert(src.extra_modules.end(), callee->extra_modules.begin(),
                             callee->extra_modules.end());
    for (const auto& [n, v] : callee->globals) src.globals.emplace(n, v);
    src.captured.insert(src.captured.end(), callee->captured.begin(), callee->captured.end());
  }
}

}  // namespace gpujit::py
