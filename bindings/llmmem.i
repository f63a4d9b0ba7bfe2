/*
 * bindings/llmmem.i — the one SWIG interface of libllmmem, for Python and Go.
 *
 * It wraps the public header as it is, so every enum value (new keys included) and every
 * function appears in the raw layer without an edit here, and adds only what SWIG cannot
 * infer from C:
 *   - the opaque handles become classes with destructors (ModelHandle, HardwareHandle,
 *     StrategyHandle, ReportHandle, CheckpointHandle, ServingHandle, PlanHandle,
 *     TimelineHandle, LocalHandle); the
 *     functions that create them (`T **out`) are replaced by factories returning the handle,
 *     NULL on failure (a new handle type needs one LLMMEM_HANDLE line and its factories);
 *   - output parameters (`uint64_t *count_out`, `int64_t *value_out`, `double *`, enum
 *     pointers) become return values; strings the library allocates are freed;
 *   - lists of numbers (llmmem_strategy_set_list / get_list) are Python sequences and lists,
 *     Go []float64;
 *   - Python: a failed status raises the exception class registered for it, carrying
 *     llmmem_last_message() read in the same wrapper, on the same thread, right after the
 *     call. The GIL is released only around the calls that read their inputs for long:
 *     estimates, solvers, the planner and the file readers.
 *   - Go: statuses are returned as they are; the Go layer reads the message while the
 *     goroutine is locked to its OS thread (bindings/go/llmmem.go).
 * No arithmetic here: every number comes from the C core. The raw layers are private
 * (Python: llmmem.core, Go: internal/raw); the idiomatic layers sit on top.
 *
 * SWIG 4.1. The same file is run by meson (Python) and by `go build` through
 * bindings/go/internal/raw/raw.swig (Go), which passes only -I options, never -D: language
 * differences use SWIG's own SWIGPYTHON / SWIGGO.
 */
#if defined(SWIGPYTHON)
%module(package="llmmem", threads="1") core
#else
%module raw
#endif

%{
#include <stdlib.h>
#include <string.h>
#include <llmmem/llmmem.h>

/* Status of the last failed factory below on this thread: the factories return NULL, so
 * the status the C call returned is kept here for the error glue. */
static _Thread_local llmmem_status llmmem_bind_factory_status;

/* Records st; returns handle when st is LLMMEM_OK. Call it after the C call has returned
 * (a separate statement: argument evaluation order is unspecified). */
static void *llmmem_bind_factory_result(llmmem_status st, void *handle)
{
    llmmem_bind_factory_status = st;
    return st == LLMMEM_OK ? handle : NULL;
}
%}

%include <stdint.i>
%include <typemaps.i>

#define LLMMEM_API

#if defined(SWIGPYTHON)
/* Hold the GIL by default: setters change a handle and must not run beside an estimate
 * reading it; getters are too short to gain from releasing it. The long calls that only
 * read their inputs release it (%thread below). */
%nothread;
#endif

/* ------------------------------------------------------------------------ */
/* Output parameters become return values                                    */
/* ------------------------------------------------------------------------ */

/* Every non-const pointer to a number in the public API is an output (outputs come first).
 * `long long` rather than int64_t: stdint.i's int64_t depends on SWIGWORDSIZE64, which go
 * build cannot set; int-sized enums go through long long too (Go's OUTPUT for `int` writes
 * a C int into a 64-bit Go int); `enum SWIGTYPE *` covers every enum output (llmmem_key *,
 * llmmem_format *, ...), appended ones included. */
%apply unsigned long long *OUTPUT { uint64_t * };
%apply long long *OUTPUT { int64_t *, int *, enum SWIGTYPE * };
%apply double *OUTPUT { double * };

/* Lists of numbers (list keys such as tensor_split). In: `(const double *values, size_t count)`,
 * a Python sequence of numbers or a Go []float64. Out: `(double *values_out, size_t capacity,
 * size_t *count_out)`; Python passes the capacity and gets (values written, count), Go passes a
 * []float64 the library fills and a []uint64 for the count. */
#if defined(SWIGPYTHON)
%typemap(in) (const double *values, size_t count) (double *buf = NULL) {
  PyObject *seq = PySequence_Fast($input, "a list key's values must be a sequence of numbers");
  Py_ssize_t n, i;
  if (seq == NULL)
    SWIG_fail;
  n = PySequence_Fast_GET_SIZE(seq);
  if (n > 0 && (buf = (double *)calloc((size_t)n, sizeof(double))) == NULL) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    SWIG_fail;
  }
  for (i = 0; i < n; i++) {
    buf[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    if (buf[i] == -1.0 && PyErr_Occurred()) {
      Py_DECREF(seq);
      SWIG_fail;
    }
  }
  Py_DECREF(seq);
  $1 = buf;
  $2 = (size_t)n;
}
%typemap(freearg) (const double *values, size_t count) {
  free(buf$argnum);
}
%typemap(argout) (const double *values, size_t count) "";
%typemap(in) (double *values_out, size_t capacity, size_t *count_out) (double *buf = NULL, size_t count = 0) {
  size_t cap = PyLong_AsSize_t($input);
  if (cap == (size_t)-1 && PyErr_Occurred())
    SWIG_fail;
  if (cap > 0 && (buf = (double *)calloc(cap, sizeof(double))) == NULL) {
    PyErr_NoMemory();
    SWIG_fail;
  }
  $1 = buf;
  $2 = cap;
  $3 = &count;
}
%typemap(argout) (double *values_out, size_t capacity, size_t *count_out) {
  PyObject *list = PyList_New(0);
  size_t i;
  for (i = 0; list != NULL && i < $2 && i < count$argnum; i++) {
    PyObject *item = PyFloat_FromDouble($1[i]);
    if (item == NULL || PyList_Append(list, item) != 0)
      Py_CLEAR(list);
    Py_XDECREF(item);
  }
  /* one tuple (values, count): appended one by one, an empty list would take the count in */
  PyObject *pair = list != NULL ? Py_BuildValue("(Nn)", list, (Py_ssize_t)count$argnum) : NULL;
  if (pair == NULL)
    SWIG_fail;
  %append_output(pair);
}
%typemap(freearg) (double *values_out, size_t capacity, size_t *count_out) {
  free(buf$argnum);
}
#else
%typemap(gotype) (const double *values, size_t count), (double *values_out, size_t capacity) "[]float64"
%typemap(in) (const double *values, size_t count), (double *values_out, size_t capacity) %{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}
%typemap(argout) (const double *values, size_t count), (double *values_out, size_t capacity) ""
%typemap(freearg) (const double *values, size_t count), (double *values_out, size_t capacity) ""
%apply unsigned long long *OUTPUT { size_t *count_out };
#endif

/* Byte buffers in: Python bytes-like or str (UTF-8), Go string. */
#if defined(SWIGPYTHON)
/* The buffer stays exported until the call returns: the readers run without the GIL. */
%typemap(in) (const char *json, size_t len) (Py_buffer view, int have_view = 0),
             (const char *data, size_t size) (Py_buffer view, int have_view = 0) {
  if (PyUnicode_Check($input)) {
    Py_ssize_t n = 0;
    const char *p = PyUnicode_AsUTF8AndSize($input, &n);
    if (p == NULL)
      SWIG_fail;
    $1 = ($1_ltype)p;
    $2 = (size_t)n;
  } else {
    if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) != 0)
      SWIG_fail;
    have_view = 1;
    $1 = ($1_ltype)view.buf;
    $2 = (size_t)view.len;
  }
}
%typemap(freearg) (const char *json, size_t len), (const char *data, size_t size) {
  if (have_view$argnum)
    PyBuffer_Release(&view$argnum);
}
/* File paths: str (encoded as the file system does, os.fsencode: a name that is not UTF-8
 * comes back from os.listdir with surrogate escapes and goes out as its bytes), bytes or
 * os.PathLike. The bytes object lives until the call returns (the readers run without the
 * GIL). The llmmem package checks paths before (NUL, characters no file name can hold). */
%typemap(in) const char *path (PyObject *path_bytes = NULL) {
  if (!PyUnicode_FSConverter($input, &path_bytes))
    SWIG_fail;
  $1 = PyBytes_AS_STRING(path_bytes);
}
%typemap(freearg) const char *path {
  Py_XDECREF(path_bytes$argnum);
}
#else
%apply (char *STRING, size_t LENGTH) { (const char *json, size_t len) };
%apply (char *STRING, size_t LENGTH) { (const char *data, size_t size) };
#endif

/* Strings the library allocates (to_json): returned, then freed. */
%typemap(newfree) char * "llmmem_string_free($1);";

#if defined(SWIGPYTHON)
/* `char **json_out` (any *_to_json): a str, freed here. */
%typemap(in, numinputs=0, noblock=1) char **json_out (char *temp = NULL) {
  $1 = &temp;
}
%typemap(argout, noblock=1) char **json_out {
  if (temp$argnum) {
    %append_output(PyUnicode_DecodeUTF8(temp$argnum, (Py_ssize_t)strlen(temp$argnum), "replace"));
  }
}
%typemap(freearg, noblock=1) char **json_out {
  llmmem_string_free(temp$argnum);
}
/* `const char **name_out` (borrowed names): a str, or None for NULL. */
%typemap(in, numinputs=0, noblock=1) const char ** (const char *temp = NULL) {
  $1 = &temp;
}
%typemap(argout, noblock=1) const char ** {
  %append_output(temp$argnum ? PyUnicode_DecodeUTF8(temp$argnum, (Py_ssize_t)strlen(temp$argnum), "replace")
                             : SWIG_Py_Void());
}
#endif

/* ------------------------------------------------------------------------ */
/* Python: a status other than LLMMEM_OK raises                              */
/* ------------------------------------------------------------------------ */

#if defined(SWIGPYTHON)
%{
/* Exception classes by status, registered by the llmmem package (llmmem/_errors.py):
 * a tuple whose item 0 is the base class. Until then RuntimeError is raised. */
static PyObject *llmmem_py_error_classes = NULL;

/* The text of a failure: the thread-local message when it belongs to this status. */
static const char *llmmem_bind_message(llmmem_status st)
{
    const char *msg = llmmem_last_message();
    if (llmmem_last_status() == st && msg != NULL && msg[0] != '\0')
        return msg;
    return llmmem_status_str(st);
}

static void llmmem_py_raise(llmmem_status st)
{
    const char *text = llmmem_bind_message(st);
    PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    PyObject *cls = NULL;
    if (msg == NULL)
        return;
    if (llmmem_py_error_classes != NULL && PyTuple_Check(llmmem_py_error_classes)) {
        Py_ssize_t n = PyTuple_GET_SIZE(llmmem_py_error_classes);
        if (n > 0)
            cls = PyTuple_GET_ITEM(llmmem_py_error_classes, ((Py_ssize_t)st > 0 && (Py_ssize_t)st < n) ? (Py_ssize_t)st : 0);
        if (cls == Py_None)
            cls = PyTuple_GET_ITEM(llmmem_py_error_classes, 0);
    }
    if (cls == NULL) {
        PyErr_SetObject(PyExc_RuntimeError, msg);
    } else {
        /* cls(message); the status is also set on the instance, so that a status this
         * package has no class for (the base class) still carries it. */
        PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
        PyObject *code = exc != NULL ? PyLong_FromLong((long)st) : NULL;
        if (code != NULL && PyObject_SetAttrString(exc, "status", code) == 0)
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_XDECREF(code);
        Py_XDECREF(exc);
    }
    Py_DECREF(msg);
}
%}

%typemap(out, noblock=1) llmmem_status {
  if ($1 != LLMMEM_OK) {
    llmmem_py_raise($1);
    SWIG_fail;
  }
  $result = SWIG_Py_Void();
}

/* The status accessors report a status; they must not raise it. */
%typemap(out) llmmem_status llmmem_last_status "$result = PyLong_FromLong((long)$1);";
%typemap(out) llmmem_status llmmem_bind_last_factory_status "$result = PyLong_FromLong((long)$1);";
%typemap(out) llmmem_status llmmem_engines_status "$result = PyLong_FromLong((long)$1);";

%inline %{
/* Called once by the llmmem package with its exception classes (a tuple by status). */
void llmmem_py_set_error_classes(PyObject *classes)
{
    PyObject *old = llmmem_py_error_classes;
    Py_XINCREF(classes);
    llmmem_py_error_classes = classes;
    Py_XDECREF(old);
}
%}

/* Factories return NULL on failure: raise what the C call returned. */
%define LLMMEM_PY_FACTORY(NAME)
%exception NAME {
  $action
  if (result == NULL) {
    llmmem_py_raise(llmmem_bind_factory_status != LLMMEM_OK ? llmmem_bind_factory_status
                                                            : LLMMEM_ERR_NO_MEMORY);
    SWIG_fail;
  }
}
%enddef
#else
%define LLMMEM_PY_FACTORY(NAME)
%enddef
#endif

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

/* The C types stay incomplete; SWIG sees an empty struct so that it can give the proxy a
 * destructor. Handles are made only by the factories below. */
%define LLMMEM_HANDLE(CTYPE, NAME, FREE)
%rename(NAME) CTYPE;
%nodefaultctor CTYPE;
struct CTYPE {};
%extend CTYPE {
  ~CTYPE() { FREE($self); }
}
%ignore FREE;
%enddef

LLMMEM_HANDLE(llmmem_model, ModelHandle, llmmem_model_free)
LLMMEM_HANDLE(llmmem_hardware, HardwareHandle, llmmem_hardware_free)
LLMMEM_HANDLE(llmmem_strategy, StrategyHandle, llmmem_strategy_free)
LLMMEM_HANDLE(llmmem_report, ReportHandle, llmmem_report_free)
LLMMEM_HANDLE(llmmem_checkpoint, CheckpointHandle, llmmem_checkpoint_free)
LLMMEM_HANDLE(llmmem_serving, ServingHandle, llmmem_serving_free)
LLMMEM_HANDLE(llmmem_plan, PlanHandle, llmmem_plan_free)
LLMMEM_HANDLE(llmmem_timeline, TimelineHandle, llmmem_timeline_free)
LLMMEM_HANDLE(llmmem_local, LocalHandle, llmmem_local_free)
LLMMEM_HANDLE(llmmem_engines, EnginesHandle, llmmem_engines_free)

/* The `T **out` creators are replaced by the factories. */
%ignore llmmem_model_new;
%ignore llmmem_model_from_preset;
%ignore llmmem_model_clone;
%ignore llmmem_model_from_hf_config;
%ignore llmmem_model_from_hf_config_text;
%ignore llmmem_hardware_new;
%ignore llmmem_hardware_from_preset;
%ignore llmmem_hardware_clone;
%ignore llmmem_strategy_new;
%ignore llmmem_strategy_clone;
%ignore llmmem_report_new;
%ignore llmmem_report_clone;
%ignore llmmem_checkpoint_from_safetensors;
%ignore llmmem_checkpoint_from_safetensors_bytes;
%ignore llmmem_checkpoint_from_gguf;
%ignore llmmem_checkpoint_from_gguf_bytes;
%ignore llmmem_checkpoint_model;
%ignore llmmem_serving_new;
%ignore llmmem_serving_clone;
%ignore llmmem_plan_new;
%ignore llmmem_plan_get;
%ignore llmmem_timeline_new;
%ignore llmmem_local_new;
%ignore llmmem_local_clone;
%ignore llmmem_engines_new;
/* Freed by the handle classes, or by the typemaps above. */
%ignore llmmem_string_free;
/* Replaced by the string helpers below (Go has no `char **` typemap). */
%ignore llmmem_report_to_json;
%ignore llmmem_serving_to_json;
%ignore llmmem_plan_to_json;
%ignore llmmem_timeline_to_json;
%ignore llmmem_local_to_json;
%ignore llmmem_engines_to_json;
%ignore llmmem_checkpoint_tensor;
%ignore llmmem_checkpoint_dtype;

%newobject llmmem_bind_model_new;
%newobject llmmem_bind_model_from_preset;
%newobject llmmem_bind_model_clone;
%newobject llmmem_bind_model_from_hf_config;
%newobject llmmem_bind_model_from_hf_config_text;
%newobject llmmem_bind_hardware_new;
%newobject llmmem_bind_hardware_from_preset;
%newobject llmmem_bind_hardware_clone;
%newobject llmmem_bind_strategy_new;
%newobject llmmem_bind_strategy_clone;
%newobject llmmem_bind_report_new;
%newobject llmmem_bind_report_clone;
%newobject llmmem_bind_checkpoint_from_safetensors;
%newobject llmmem_bind_checkpoint_from_safetensors_bytes;
%newobject llmmem_bind_checkpoint_from_gguf;
%newobject llmmem_bind_checkpoint_from_gguf_bytes;
%newobject llmmem_bind_checkpoint_model;
%newobject llmmem_bind_serving_new;
%newobject llmmem_bind_serving_clone;
%newobject llmmem_bind_plan_new;
%newobject llmmem_bind_plan_get;
%newobject llmmem_bind_timeline_new;
%newobject llmmem_bind_local_new;
%newobject llmmem_bind_local_clone;
%newobject llmmem_bind_report_json;
%newobject llmmem_bind_serving_json;
%newobject llmmem_bind_plan_json;
%newobject llmmem_bind_timeline_json;
%newobject llmmem_bind_local_json;
%newobject llmmem_bind_engines_new;
%newobject llmmem_bind_engines_json;

LLMMEM_PY_FACTORY(llmmem_bind_model_new)
LLMMEM_PY_FACTORY(llmmem_bind_model_from_preset)
LLMMEM_PY_FACTORY(llmmem_bind_model_clone)
LLMMEM_PY_FACTORY(llmmem_bind_model_from_hf_config)
LLMMEM_PY_FACTORY(llmmem_bind_model_from_hf_config_text)
LLMMEM_PY_FACTORY(llmmem_bind_hardware_new)
LLMMEM_PY_FACTORY(llmmem_bind_hardware_from_preset)
LLMMEM_PY_FACTORY(llmmem_bind_hardware_clone)
LLMMEM_PY_FACTORY(llmmem_bind_strategy_new)
LLMMEM_PY_FACTORY(llmmem_bind_strategy_clone)
LLMMEM_PY_FACTORY(llmmem_bind_report_new)
LLMMEM_PY_FACTORY(llmmem_bind_report_clone)
LLMMEM_PY_FACTORY(llmmem_bind_checkpoint_from_safetensors)
LLMMEM_PY_FACTORY(llmmem_bind_checkpoint_from_safetensors_bytes)
LLMMEM_PY_FACTORY(llmmem_bind_checkpoint_from_gguf)
LLMMEM_PY_FACTORY(llmmem_bind_checkpoint_from_gguf_bytes)
LLMMEM_PY_FACTORY(llmmem_bind_checkpoint_model)
LLMMEM_PY_FACTORY(llmmem_bind_serving_new)
LLMMEM_PY_FACTORY(llmmem_bind_serving_clone)
LLMMEM_PY_FACTORY(llmmem_bind_plan_new)
LLMMEM_PY_FACTORY(llmmem_bind_plan_get)
LLMMEM_PY_FACTORY(llmmem_bind_timeline_new)
LLMMEM_PY_FACTORY(llmmem_bind_local_new)
LLMMEM_PY_FACTORY(llmmem_bind_local_clone)
LLMMEM_PY_FACTORY(llmmem_bind_report_json)
LLMMEM_PY_FACTORY(llmmem_bind_serving_json)
LLMMEM_PY_FACTORY(llmmem_bind_plan_json)
LLMMEM_PY_FACTORY(llmmem_bind_timeline_json)
LLMMEM_PY_FACTORY(llmmem_bind_local_json)
LLMMEM_PY_FACTORY(llmmem_bind_engines_new)
LLMMEM_PY_FACTORY(llmmem_bind_engines_json)

#if defined(SWIGPYTHON)
/* The long calls that only read their inputs run without the GIL. */
%thread llmmem_estimate;
%thread llmmem_estimate_runs;
%thread llmmem_estimate_timeline;
%thread llmmem_estimate_timeline_runs;
%thread llmmem_serving_estimate;
%thread llmmem_local_estimate;
%thread llmmem_local_solve;
%thread llmmem_engines_estimate;
%thread llmmem_solve_max_micro_batch;
%thread llmmem_solve_max_sequence_length;
%thread llmmem_solve_weight_format;
%thread llmmem_solve_min_devices;
%thread llmmem_plan_run;
%thread llmmem_plan_min_devices;
%thread llmmem_bind_model_from_hf_config;
%thread llmmem_bind_model_from_hf_config_text;
%thread llmmem_bind_checkpoint_from_safetensors;
%thread llmmem_bind_checkpoint_from_safetensors_bytes;
%thread llmmem_bind_checkpoint_from_gguf;
%thread llmmem_bind_checkpoint_from_gguf_bytes;
#endif

%inline %{
llmmem_model *llmmem_bind_model_new(void)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_new(&m);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}
llmmem_model *llmmem_bind_model_from_preset(const char *name)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_from_preset(&m, name);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}
llmmem_model *llmmem_bind_model_clone(const llmmem_model *model)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_clone(&m, model);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}
llmmem_model *llmmem_bind_model_from_hf_config(const char *path)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_from_hf_config(&m, path);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}
llmmem_model *llmmem_bind_model_from_hf_config_text(const char *json, size_t len)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_model_from_hf_config_text(&m, json, len);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}
llmmem_hardware *llmmem_bind_hardware_new(void)
{
    llmmem_hardware *h = NULL;
    llmmem_status st = llmmem_hardware_new(&h);
    return (llmmem_hardware *)llmmem_bind_factory_result(st, h);
}
llmmem_hardware *llmmem_bind_hardware_from_preset(const char *name)
{
    llmmem_hardware *h = NULL;
    llmmem_status st = llmmem_hardware_from_preset(&h, name);
    return (llmmem_hardware *)llmmem_bind_factory_result(st, h);
}
llmmem_hardware *llmmem_bind_hardware_clone(const llmmem_hardware *hw)
{
    llmmem_hardware *h = NULL;
    llmmem_status st = llmmem_hardware_clone(&h, hw);
    return (llmmem_hardware *)llmmem_bind_factory_result(st, h);
}
llmmem_strategy *llmmem_bind_strategy_new(void)
{
    llmmem_strategy *s = NULL;
    llmmem_status st = llmmem_strategy_new(&s);
    return (llmmem_strategy *)llmmem_bind_factory_result(st, s);
}
llmmem_strategy *llmmem_bind_strategy_clone(const llmmem_strategy *strategy)
{
    llmmem_strategy *s = NULL;
    llmmem_status st = llmmem_strategy_clone(&s, strategy);
    return (llmmem_strategy *)llmmem_bind_factory_result(st, s);
}
llmmem_report *llmmem_bind_report_new(void)
{
    llmmem_report *r = NULL;
    llmmem_status st = llmmem_report_new(&r);
    return (llmmem_report *)llmmem_bind_factory_result(st, r);
}
llmmem_report *llmmem_bind_report_clone(const llmmem_report *report)
{
    llmmem_report *r = NULL;
    llmmem_status st = llmmem_report_clone(&r, report);
    return (llmmem_report *)llmmem_bind_factory_result(st, r);
}
llmmem_checkpoint *llmmem_bind_checkpoint_from_safetensors(const char *path)
{
    llmmem_checkpoint *c = NULL;
    llmmem_status st = llmmem_checkpoint_from_safetensors(&c, path);
    return (llmmem_checkpoint *)llmmem_bind_factory_result(st, c);
}
llmmem_checkpoint *llmmem_bind_checkpoint_from_safetensors_bytes(const char *data, size_t size)
{
    llmmem_checkpoint *c = NULL;
    llmmem_status st = llmmem_checkpoint_from_safetensors_bytes(&c, data, size);
    return (llmmem_checkpoint *)llmmem_bind_factory_result(st, c);
}
llmmem_checkpoint *llmmem_bind_checkpoint_from_gguf(const char *path)
{
    llmmem_checkpoint *c = NULL;
    llmmem_status st = llmmem_checkpoint_from_gguf(&c, path);
    return (llmmem_checkpoint *)llmmem_bind_factory_result(st, c);
}
llmmem_checkpoint *llmmem_bind_checkpoint_from_gguf_bytes(const char *data, size_t size)
{
    llmmem_checkpoint *c = NULL;
    llmmem_status st = llmmem_checkpoint_from_gguf_bytes(&c, data, size);
    return (llmmem_checkpoint *)llmmem_bind_factory_result(st, c);
}
llmmem_model *llmmem_bind_checkpoint_model(const llmmem_checkpoint *ck)
{
    llmmem_model *m = NULL;
    llmmem_status st = llmmem_checkpoint_model(&m, ck);
    return (llmmem_model *)llmmem_bind_factory_result(st, m);
}

llmmem_serving *llmmem_bind_serving_new(void)
{
    llmmem_serving *v = NULL;
    llmmem_status st = llmmem_serving_new(&v);
    return (llmmem_serving *)llmmem_bind_factory_result(st, v);
}
llmmem_serving *llmmem_bind_serving_clone(const llmmem_serving *serving)
{
    llmmem_serving *v = NULL;
    llmmem_status st = llmmem_serving_clone(&v, serving);
    return (llmmem_serving *)llmmem_bind_factory_result(st, v);
}
llmmem_plan *llmmem_bind_plan_new(void)
{
    llmmem_plan *p = NULL;
    llmmem_status st = llmmem_plan_new(&p);
    return (llmmem_plan *)llmmem_bind_factory_result(st, p);
}
/* The index-th layout of a plan, as a new strategy. */
llmmem_strategy *llmmem_bind_plan_get(const llmmem_plan *plan, size_t index)
{
    llmmem_strategy *s = NULL;
    llmmem_status st = llmmem_plan_get(&s, plan, index);
    return (llmmem_strategy *)llmmem_bind_factory_result(st, s);
}

llmmem_timeline *llmmem_bind_timeline_new(void)
{
    llmmem_timeline *t = NULL;
    llmmem_status st = llmmem_timeline_new(&t);
    return (llmmem_timeline *)llmmem_bind_factory_result(st, t);
}

llmmem_local *llmmem_bind_local_new(void)
{
    llmmem_local *l = NULL;
    llmmem_status st = llmmem_local_new(&l);
    return (llmmem_local *)llmmem_bind_factory_result(st, l);
}
llmmem_local *llmmem_bind_local_clone(const llmmem_local *local)
{
    llmmem_local *l = NULL;
    llmmem_status st = llmmem_local_clone(&l, local);
    return (llmmem_local *)llmmem_bind_factory_result(st, l);
}

/* Status of the last failed factory on this thread (Go reads it under LockOSThread). */
llmmem_status llmmem_bind_last_factory_status(void)
{
    return llmmem_bind_factory_status;
}

/* The report as JSON, NULL on failure (freed by the wrapper after copying). */
char *llmmem_bind_report_json(const llmmem_report *report)
{
    char *json = NULL;
    llmmem_status st = llmmem_report_to_json(&json, report);
    return (char *)llmmem_bind_factory_result(st, json);
}

/* The serving result as JSON, NULL on failure. */
char *llmmem_bind_serving_json(const llmmem_serving *serving)
{
    char *json = NULL;
    llmmem_status st = llmmem_serving_to_json(&json, serving);
    return (char *)llmmem_bind_factory_result(st, json);
}

/* The plan as JSON, NULL on failure. */
char *llmmem_bind_plan_json(const llmmem_plan *plan)
{
    char *json = NULL;
    llmmem_status st = llmmem_plan_to_json(&json, plan);
    return (char *)llmmem_bind_factory_result(st, json);
}

/* The timeline as JSON, NULL on failure. */
char *llmmem_bind_timeline_json(const llmmem_timeline *timeline)
{
    char *json = NULL;
    llmmem_status st = llmmem_timeline_to_json(&json, timeline);
    return (char *)llmmem_bind_factory_result(st, json);
}

/* The local inference result as JSON, NULL on failure. */
char *llmmem_bind_local_json(const llmmem_local *local)
{
    char *json = NULL;
    llmmem_status st = llmmem_local_to_json(&json, local);
    return (char *)llmmem_bind_factory_result(st, json);
}

llmmem_engines *llmmem_bind_engines_new(void)
{
    llmmem_engines *e = NULL;
    llmmem_status st = llmmem_engines_new(&e);
    return (llmmem_engines *)llmmem_bind_factory_result(st, e);
}
/* The comparison as JSON, NULL on failure. */
char *llmmem_bind_engines_json(const llmmem_engines *engines)
{
    char *json = NULL;
    llmmem_status st = llmmem_engines_to_json(&json, engines);
    return (char *)llmmem_bind_factory_result(st, json);
}

/* One field of a stored tensor or dtype, for languages without multi-output typemaps. */
const char *llmmem_bind_checkpoint_tensor_name(const llmmem_checkpoint *ck, size_t index)
{
    const char *name = NULL;
    return llmmem_checkpoint_tensor(&name, NULL, NULL, NULL, NULL, NULL, ck, index) == LLMMEM_OK ? name : NULL;
}
const char *llmmem_bind_checkpoint_tensor_dtype(const llmmem_checkpoint *ck, size_t index)
{
    const char *dtype = NULL;
    return llmmem_checkpoint_tensor(NULL, &dtype, NULL, NULL, NULL, NULL, ck, index) == LLMMEM_OK ? dtype : NULL;
}
llmmem_status llmmem_bind_checkpoint_tensor_sizes(uint64_t *elements_out, uint64_t *bytes_out,
                                                  int64_t *role_out, int64_t *group_out,
                                                  const llmmem_checkpoint *ck, size_t index)
{
    llmmem_tensor_role role = LLMMEM_TENSOR_PARAMETER;
    llmmem_param_group group = LLMMEM_PARAMS_EMBEDDING;
    llmmem_status st = llmmem_checkpoint_tensor(NULL, NULL, elements_out, bytes_out, &role, &group, ck, index);
    *role_out = (int64_t)role;
    *group_out = (int64_t)group;
    return st;
}
const char *llmmem_bind_checkpoint_dtype_name(const llmmem_checkpoint *ck, size_t index)
{
    const char *dtype = NULL;
    return llmmem_checkpoint_dtype(&dtype, NULL, NULL, ck, index) == LLMMEM_OK ? dtype : NULL;
}
llmmem_status llmmem_bind_checkpoint_dtype_sizes(uint64_t *elements_out, uint64_t *bytes_out,
                                                 const llmmem_checkpoint *ck, size_t index)
{
    return llmmem_checkpoint_dtype(NULL, elements_out, bytes_out, ck, index);
}
%}

/* ------------------------------------------------------------------------ */
/* The public API                                                            */
/* ------------------------------------------------------------------------ */

%include "llmmem/llmmem.h"
