// Force-included (-include) in Clang builds against an ITK whose itk_compiler_detection.h knows only
// the compiler ITK was built with (Debian 12's ITK 5.2: GCC; Clang meets "#error Unsupported
// compiler"). The header is read once here as if by GCC 12.2 (its include guard keeps ITK from
// reading it again); Clang's own macros are restored right after, so nothing else changes.
#if defined(__clang__) && defined(__cplusplus) && !defined(ITK_COMPILER_DETECTION_H) && __has_include(<itk_compiler_detection.h>)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wbuiltin-macro-redefined"
#  pragma push_macro("__clang__")
#  pragma push_macro("__GNUC__")
#  pragma push_macro("__GNUC_MINOR__")
#  undef __clang__
#  undef __GNUC__
#  undef __GNUC_MINOR__
#  define __GNUC__ 12
#  define __GNUC_MINOR__ 2
#  include <itk_compiler_detection.h>
#  pragma pop_macro("__GNUC_MINOR__")
#  pragma pop_macro("__GNUC__")
#  pragma pop_macro("__clang__")
#  pragma clang diagnostic pop
#endif
