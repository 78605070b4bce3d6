# Debian's libcpp-httplib-dev 0.11.4 is a compiled library (libcpp-httplib.so) with a
# declarations-only httplib.h. The library was built with OpenSSL, zlib and Brotli
# support, and those macros change the layout of its classes: every file that includes
# the header must define them too, or it disagrees with the library about its objects.
# This module creates httplib::httplib with those definitions (no pkg-config needed).
find_path(HTTPLIB_INCLUDE_DIR httplib.h)
find_library(HTTPLIB_LIBRARY cpp-httplib)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Httplib REQUIRED_VARS HTTPLIB_INCLUDE_DIR HTTPLIB_LIBRARY)
if(Httplib_FOUND AND NOT TARGET httplib::httplib)
  add_library(httplib::httplib SHARED IMPORTED)
  set_target_properties(httplib::httplib PROPERTIES IMPORTED_LOCATION "${HTTPLIB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HTTPLIB_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "CPPHTTPLIB_OPENSSL_SUPPORT;CPPHTTPLIB_ZLIB_SUPPORT;CPPHTTPLIB_BROTLI_SUPPORT")
endif()
