package llmmem

import (
	"runtime"

	"llmmem/internal/raw"
)

// Status is a libllmmem status code. The failure statuses are errors themselves, so that
// errors.Is(err, llmmem.ErrIncompatible) tests the status of an *Error.
type Status int

// The status codes, read from the C header through the SWIG package (values are pinned).
var (
	OK                 = Status(raw.LLMMEM_OK)
	ErrInvalidArgument = Status(raw.LLMMEM_ERR_INVALID_ARGUMENT) // a malformed value
	ErrOutOfRange      = Status(raw.LLMMEM_ERR_OUT_OF_RANGE)     // a value outside its key's bounds
	ErrUnknownKey      = Status(raw.LLMMEM_ERR_UNKNOWN_KEY)      // no such key, or a key of another object
	ErrNotFound        = Status(raw.LLMMEM_ERR_NOT_FOUND)        // no preset or choice of that name
	ErrIncompatible    = Status(raw.LLMMEM_ERR_INCOMPATIBLE)     // settings that cannot run together
	ErrOverflow        = Status(raw.LLMMEM_ERR_OVERFLOW)         // a count exceeds 64 bits
	ErrNoMemory        = Status(raw.LLMMEM_ERR_NO_MEMORY)        // the C library could not allocate
	ErrIO              = Status(raw.LLMMEM_ERR_IO)               // a file could not be read
	ErrParse           = Status(raw.LLMMEM_ERR_PARSE)            // a malformed file
	ErrUnsupported     = Status(raw.LLMMEM_ERR_UNSUPPORTED)      // valid, but not modelled
	ErrIncomplete      = Status(raw.LLMMEM_ERR_INCOMPLETE)       // a required setting is missing
)

// String is the library's name of the status ("value out of range").
func (s Status) String() string {
	return raw.Llmmem_status_str(raw.Enum_SS_llmmem_status(s))
}

// Error makes a failure status usable as an error and as an errors.Is target.
func (s Status) Error() string {
	return "llmmem: " + s.String()
}

// Error is a failed libllmmem call: its status and the library's message, which names the
// key and the value at fault ("num_attention_heads (32) is not divisible by tensor_parallel (3)").
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	if e == nil {
		return "llmmem: <nil error>"
	}
	return "llmmem: " + e.Message
}

// Unwrap gives the status, so errors.Is(err, llmmem.ErrOutOfRange) works.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Status
}

// lastError turns a status into an *Error carrying the thread-local message. The caller
// must hold runtime.LockOSThread since before the C call that returned st: the message
// lives in C thread-local storage, and a goroutine may otherwise move to another thread.
func lastError(st raw.Enum_SS_llmmem_status) error {
	if st == raw.LLMMEM_OK {
		return nil
	}
	msg := raw.Llmmem_last_message()
	if raw.Llmmem_last_status() != st || msg == "" {
		msg = raw.Llmmem_status_str(st)
	}
	return &Error{Status: Status(st), Message: msg}
}

// call runs one C call returning a status and reads its message on the same OS thread.
func call(f func() raw.Enum_SS_llmmem_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return lastError(f())
}

// create runs a factory that returns a handle (0 on failure) and reads the status and the
// message of a failure on the same OS thread.
func create[H interface{ Swigcptr() uintptr }](f func() H) (H, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := f()
	if h.Swigcptr() == 0 {
		st := raw.Llmmem_bind_last_factory_status()
		if st == raw.LLMMEM_OK {
			st = raw.LLMMEM_ERR_NO_MEMORY
		}
		return h, lastError(st)
	}
	return h, nil
}

// bindError is an error found by this package before any C call (a Go type the library
// has no setter for, a closed handle, a NUL in a name).
func bindError(st Status, msg string) error {
	return &Error{Status: st, Message: msg}
}
