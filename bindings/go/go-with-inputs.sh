#!/bin/sh
# Runs the go tool for meson's Go tests: go-with-inputs.sh GO FILE... -- ARGS...
#
# `go build` runs swig on internal/raw/raw.swig, but its cache key covers only that file,
# not bindings/llmmem.i it includes nor the header swig reads: after an edit to those, go
# would reuse the stale wrapper. A checksum of FILE... in CGO_CPPFLAGS (part of the cache key
# of every cgo package) makes go regenerate the wrapper exactly when they change.
set -eu
go=$1
shift
sum=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  sum="$sum$(cksum < "$1" | cut -d' ' -f1)x"
  shift
done
[ "$#" -gt 0 ] && shift
export CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DLLMMEM_SWIG_INPUTS=$sum"
exec "$go" "$@"
