// Package raw is the SWIG-generated wrapper of libllmmem (from bindings/llmmem.i). It is
// internal: use package llmmem, which turns statuses into errors and handles into types
// with Close.
package raw

// pkg-config gives the library (and, for a build tree, its headers: PKG_CONFIG_PATH=
// build/meson-uninstalled). The CPPFLAGS line lets swig find llmmem/llmmem.h even when the
// library is installed under /usr, whose include directory pkg-config omits and swig never
// searches by itself.

// #cgo pkg-config: llmmem
// #cgo CPPFLAGS: -I${SRCDIR}/../../../../include
import "C"
