"""The heap counter (memcount.c) as Python sees it: the process must run with the library in
LD_PRELOAD (meson test sets it); `available()` says whether it does."""
import ctypes
import os

_lib = None


def _load():
    global _lib
    if _lib is None:
        path = next((p for p in os.environ.get("LD_PRELOAD", "").split(":") if "memcount" in p), None)
        if path is None:
            return None
        lib = ctypes.CDLL(path)
        for name in ("memcount_current", "memcount_peak"):
            getattr(lib, name).restype = ctypes.c_int64
        lib.memcount_reset_peak.restype = None
        _lib = lib
    return _lib


def available():
    return _load() is not None


def current():
    """Bytes the process's heap holds now (usable sizes)."""
    return _load().memcount_current()


def peak():
    """The most bytes held since the last reset_peak()."""
    return _load().memcount_peak()


def reset_peak():
    _load().memcount_reset_peak()
