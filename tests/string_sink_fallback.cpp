// SPDX-License-Identifier: Apache-2.0
// sink.cpp as a C++20 build compiles it: without std::string::resize_and_overwrite (C++23), so
// StringSink sizes its string by detail::set_size_by_resize. transit_sink_fallback_tests links
// this object ahead of the library, so its StringSink is the one the writers use there (in
// the static library, sink.cpp's object is then never pulled in, and two definitions would
// fail the link), and runs string_sink_test.cpp's tests against it. In a shared-library build
// (BUILD_SHARED_LIBS) libtransit.so has its own StringSink, but the executable's definitions
// interpose: the library's references bind to this copy too (LD_DEBUG=bindings; under
// callgrind only this executable's StringSink::open_region runs), so the fallback is still
// what the tests run; a library linked with -Bsymbolic or hidden visibility would change
// that. Included here, not listed as a source, so that the check below is of the very text
// the fallback is compiled from.
#include "io/sink.cpp"

#if defined(__cpp_lib_string_resize_and_overwrite)
#error "this standard library has resize_and_overwrite in C++20: the fallback is not what is built here"
#endif
