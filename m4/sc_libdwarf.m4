# SC_CHECK_LIBDWARF: Debian 12's libdwarf-dev ships no pkg-config file, so
# try pkg-config first and fall back to the header and library directly.
AC_DEFUN([SC_CHECK_LIBDWARF], [
  PKG_CHECK_MODULES([LIBDWARF], [libdwarf], [], [
    sc_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS -I/usr/include/libdwarf"
    AC_CHECK_HEADER([libdwarf.h], [],
      [AC_MSG_ERROR([libdwarf.h not found: install libdwarf-dev])])
    AC_CHECK_LIB([dwarf], [dwarf_init_b], [:],
      [AC_MSG_ERROR([libdwarf not found: install libdwarf-dev])], [-lelf -lz])
    CPPFLAGS=$sc_save_CPPFLAGS
    LIBDWARF_CFLAGS="-I/usr/include/libdwarf"
    LIBDWARF_LIBS="-ldwarf -lelf -lz"
    AC_SUBST([LIBDWARF_CFLAGS])
    AC_SUBST([LIBDWARF_LIBS])
  ])
])
