// fmt's compiled part, once, for the page's module. The native programs link
// Debian's libfmt; em++ has no such library, and fmt's header-only mode
// (FMT_HEADER_ONLY) would compile this part again into every object of the
// module (measured: about 1.5 s of em++ each, a sixth of the module's
// compiling). What follows is what fmt 9's own src/format.cc holds: the
// functions of fmt/format-inl.h, and the templates that fmt/format.h declares
// `extern`, instantiated for char (the book formats no wide strings).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
