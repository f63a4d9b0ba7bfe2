"""Exceptions: one class per libllmmem status, each carrying the library's message.

The SWIG layer (llmmem.core) raises them: when a C call returns a status other than
LLMMEM_OK, the wrapper reads llmmem_last_message() on the same thread, right after the
call, and raises the class registered here for that status. Status numbers come from the C
header (llmmem.core constants), never from a table of this package.
"""
from __future__ import annotations

from . import core as _core

__all__ = [
    "Error",
    "InvalidArgumentError",
    "InvalidTypeError",
    "OutOfRangeError",
    "UnknownKeyError",
    "NotFoundError",
    "IncompatibleError",
    "SizeOverflowError",
    "NoMemoryError",
    "FileError",
    "ParseError",
    "UnsupportedError",
    "IncompleteError",
]


class Error(Exception):
    """A libllmmem call failed.

    ``str(error)`` and ``error.message`` are the library's text, which names the key and
    the value at fault; ``error.status`` is the C status code (``llmmem_status``) and
    ``error.status_name`` its name ("value out of range").
    """

    status: int = 0

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def status_name(self) -> str:
        return _core.llmmem_status_str(self.status)

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.status))


def _rebuild(cls, message, status):
    exc = cls(message)
    exc.status = status
    return exc


class InvalidArgumentError(Error, ValueError):
    """A malformed value (a number that is not a whole number, a NUL in a name)."""

    status = _core.LLMMEM_ERR_INVALID_ARGUMENT


class InvalidTypeError(InvalidArgumentError, TypeError):
    """A value of a Python type the parameter cannot take (None where a Model is needed, a
    dict where a number is); raised by this package before any C call. Also a TypeError."""


class OutOfRangeError(Error, ValueError):
    """A value outside its key's bounds."""

    status = _core.LLMMEM_ERR_OUT_OF_RANGE


class _IndexOutOfRangeError(OutOfRangeError, IndexError):
    """An index past the end of a sequence of this package (a Plan): also an IndexError, as
    Python's sequence protocol expects."""


class UnknownKeyError(Error, KeyError):
    """No key of that name, or a key of another object."""

    status = _core.LLMMEM_ERR_UNKNOWN_KEY


class NotFoundError(Error, ValueError, LookupError):
    """No preset or choice of that name: a bad value (a ValueError, as Python's own lookups of a
    name given as an argument), and a failed lookup (a LookupError)."""

    status = _core.LLMMEM_ERR_NOT_FOUND


class IncompatibleError(Error, ValueError):
    """Settings that cannot run together (heads not divisible by tensor_parallel)."""

    status = _core.LLMMEM_ERR_INCOMPATIBLE


class SizeOverflowError(Error, OverflowError):
    """A byte or parameter count exceeds 64 bits."""

    status = _core.LLMMEM_ERR_OVERFLOW


class NoMemoryError(Error, MemoryError):
    """The C library could not allocate."""

    status = _core.LLMMEM_ERR_NO_MEMORY


class FileError(Error, OSError):
    """A file could not be read."""

    status = _core.LLMMEM_ERR_IO


class ParseError(Error, ValueError):
    """A file (config.json, safetensors or GGUF header) is malformed."""

    status = _core.LLMMEM_ERR_PARSE


class UnsupportedError(Error, NotImplementedError):
    """Valid, but not modelled by this version of the library (a NotImplementedError).

    Raised by ``llmmem.estimate_runs()`` for a job the allocator's replay does not model, its
    ``report`` is the estimate, which did not fail (``report.not_replayed`` is this message);
    None otherwise."""

    status = _core.LLMMEM_ERR_UNSUPPORTED
    report = None


class IncompleteError(Error, ValueError):
    """A required setting is missing."""

    status = _core.LLMMEM_ERR_INCOMPLETE


_CLASSES = (
    InvalidArgumentError,
    OutOfRangeError,
    UnknownKeyError,
    NotFoundError,
    IncompatibleError,
    SizeOverflowError,
    NoMemoryError,
    FileError,
    ParseError,
    UnsupportedError,
    IncompleteError,
)


for _cls in (Error, InvalidTypeError, _IndexOutOfRangeError) + _CLASSES:
    _cls.__module__ = "llmmem"  # shown as llmmem.OutOfRangeError


def _by_status():
    """The tuple the C glue indexes by status: item 0 is the base class."""
    table = [None] * (max(cls.status for cls in _CLASSES) + 1)
    table[0] = Error
    for cls in _CLASSES:
        table[cls.status] = cls
    return tuple(table)


_core.llmmem_py_set_error_classes(_by_status())
