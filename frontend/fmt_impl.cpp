// fmt's out-of-line functions, compiled once for the whole core library.
//
// The core's own objects (frontend, ir, codegen, compiler, runtime) use fmt in its compiled mode: every call
// of fmt::format goes through vformat() and friends, which fmt declares in its headers and defines in
// fmt/format-inl.h. In header-only mode (FMT_HEADER_ONLY) each translation unit includes and optimizes that
// whole implementation again (the formatting engine, Dragonbox's tables, the locale functions), which was
// about a third of the compile time of an ir/ file. Debian ships fmt as a shared library only (libfmt.so),
// and the core library must not depend on it (the gpujit-core wheel runs where fmt is not installed), so this
// file is the one place fmt's implementation is compiled, from the same headers; CMakeLists.txt compiles it
// with hidden visibility, so the core library does not export fmt's symbols.
//
// The explicit instantiations are those fmt/format.h declares `extern template` outside header-only mode,
// and the templates whose definitions only fmt/format-inl.h has.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
#endif

template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
