# SC_WARN_CFLAGS: warnings always on; -Werror only with --enable-werror
# (CI passes it) so that a newer compiler does not break a user's build.
AC_DEFUN([SC_WARN_CFLAGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  WARN_CFLAGS="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes"
  dnl The C-only flags (prototypes) would warn on tracer/demangle.cc.
  WARN_CXXFLAGS="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2"
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"
    WARN_CXXFLAGS="$WARN_CXXFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])
  AC_SUBST([WARN_CXXFLAGS])
])
