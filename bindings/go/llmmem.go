// Package llmmem is the Go binding of libllmmem: exact memory estimates for large language
// models. Every number comes from the C library; this package names, converts and returns
// them.
//
//	model, err := llmmem.NewModelFromPreset("llama-3.1-8b")
//	if err != nil { ... }
//	defer model.Close()
//	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
//	defer gpu.Close()
//	strategy, _ := llmmem.NewStrategy()
//	defer strategy.Close()
//	_ = strategy.Set("mode", "training")
//	report, err := llmmem.Estimate(model, gpu, strategy)
//
// Settings are the library's keys, by name: Set("tensor_parallel", 8) works for any key the
// library knows, new ones included. Values may be integers, floats, bools, strings (choice
// names such as "bf16", numbers with units such as "80GiB", flags such as "q,v"), []string
// flag names, or numbers for a list key (Set("tensor_split", []float64{3, 1}); Get gives a
// []float64).
//
// Local inference (llama.cpp, ollama): LocalEstimate gives the buffers of every device of one
// machine, LocalSolve the largest n_gpu_layers, n_ctx or n_parallel that fits.
//
// Errors are *Error values carrying the library's message, which names the key and value
// at fault; errors.Is(err, llmmem.ErrIncompatible) tests their status. The message is read
// while the goroutine is locked to its OS thread, since the C library keeps it per thread.
//
// Models, hardware and strategies hold C memory: Close them (a finalizer frees forgotten
// ones, later). Many goroutines may Estimate from the same inputs at once; Set and Close
// wait until the estimates reading them are done, and estimates that start meanwhile wait
// for them (sync.RWMutex blocks new readers while a writer waits), so goroutines estimating
// in a loop never starve a Set or a Close. A Report is a plain Go value.
//
// No input makes the package panic: a nil or zero *Model, *Hardware, *Strategy, *Checkpoint,
// *Serving or *Local, as an argument or as a receiver, and a closed one, give an *Error
// (ErrInvalidArgument) naming the parameter; the methods without an error result return
// their zero value.
package llmmem

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"llmmem/internal/raw"
)

// Version is the version of the loaded C library ("MAJOR.MINOR.PATCH").
func Version() string {
	return raw.Llmmem_version_string()
}

// liveHandles counts C handles this package made and has not freed (checked by the tests).
var liveHandles int64

func track(n int64) { atomic.AddInt64(&liveHandles, n) }

func checkText(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return bindError(ErrInvalidArgument, fmt.Sprintf("%s %q contains a NUL character", what, s))
	}
	return nil
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

// Key describes one setting the library knows.
type Key struct {
	Name   string
	Object string // "model", "hardware" or "strategy"
	Type   string // "int", "bool", "choice", "real", "flags" or "list"
	Doc    string
	id     raw.Enum_SS_llmmem_key
	kind   int64
}

var objectNames = map[int64]string{
	int64(raw.LLMMEM_OBJECT_MODEL):    "model",
	int64(raw.LLMMEM_OBJECT_HARDWARE): "hardware",
	int64(raw.LLMMEM_OBJECT_STRATEGY): "strategy",
}

var typeNames = map[int64]string{
	int64(raw.LLMMEM_TYPE_INT):    "int",
	int64(raw.LLMMEM_TYPE_BOOL):   "bool",
	int64(raw.LLMMEM_TYPE_CHOICE): "choice",
	int64(raw.LLMMEM_TYPE_REAL):   "real",
	int64(raw.LLMMEM_TYPE_FLAGS):  "flags",
	int64(raw.LLMMEM_TYPE_LIST):   "list",
}

func keyFromID(id raw.Enum_SS_llmmem_key) (Key, error) {
	obj, kind := []int64{0}, []int64{0}
	err := call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_key_object(obj, id) })
	if err == nil {
		err = call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_key_type(kind, id) })
	}
	if err != nil {
		return Key{}, err
	}
	return Key{
		Name:   raw.Llmmem_key_name(id),
		Object: objectNames[obj[0]],
		Type:   typeNames[kind[0]],
		Doc:    raw.Llmmem_key_doc(id),
		id:     id,
		kind:   kind[0],
	}, nil
}

// LookupKey gives the key of that name; an error naming it (ErrUnknownKey) if there is none.
func LookupKey(name string) (Key, error) {
	if err := checkText("key", name); err != nil {
		return Key{}, err
	}
	out := []int64{0}
	if err := call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_key_from_name(out, name) }); err != nil {
		return Key{}, err
	}
	return keyFromID(raw.Enum_SS_llmmem_key(out[0]))
}

// Keys lists every key the library knows, in its order.
func Keys() ([]Key, error) {
	n := int(raw.Llmmem_key_count())
	keys := make([]Key, 0, n)
	for i := 0; i < n; i++ {
		k, err := keyFromID(raw.Llmmem_key_at(int64(i)))
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// ModelPresets lists the names of the model presets.
func ModelPresets() []string {
	n := int(raw.Llmmem_model_preset_count())
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, raw.Llmmem_model_preset_name(int64(i)))
	}
	return out
}

// HardwarePresets lists the names of the hardware presets.
func HardwarePresets() []string {
	n := int(raw.Llmmem_hardware_preset_count())
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, raw.Llmmem_hardware_preset_name(int64(i)))
	}
	return out
}

// ---------------------------------------------------------------------------
// Settings shared by Model, Hardware and Strategy
// ---------------------------------------------------------------------------

// setters are one object's C accessors; setReal, getReal, setList and getList are nil where
// the C API has none.
type setters struct {
	object  string
	setInt  func(raw.Enum_SS_llmmem_key, int64) raw.Enum_SS_llmmem_status
	setReal func(raw.Enum_SS_llmmem_key, float64) raw.Enum_SS_llmmem_status
	setText func(string, string) raw.Enum_SS_llmmem_status
	getInt  func([]int64, raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status
	getReal func([]float64, raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status
	setList func(raw.Enum_SS_llmmem_key, []float64) raw.Enum_SS_llmmem_status
	getList func([]float64, []uint64, raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status
}

// set maps a Go value onto the key's setter: the library checks it and names what is wrong.
func (s *setters) set(name string, value any) error {
	k, err := LookupKey(name)
	if err != nil {
		return err
	}
	real := k.kind == int64(raw.LLMMEM_TYPE_REAL)
	text := func(t string) error {
		if err := checkText(name, t); err != nil {
			return err
		}
		return call(func() raw.Enum_SS_llmmem_status { return s.setText(name, t) })
	}
	integer := func(n int64) error {
		if real {
			if s.setReal == nil {
				return text(strconv.FormatInt(n, 10))
			}
			return call(func() raw.Enum_SS_llmmem_status { return s.setReal(k.id, float64(n)) })
		}
		return call(func() raw.Enum_SS_llmmem_status { return s.setInt(k.id, n) })
	}
	// A whole number beyond int64 is beyond every integer key's bounds (int64): the error
	// names the key, the value and the bounds, as the library's does.
	outOfRange := func(v string) error {
		lo, hi := []int64{0}, []int64{0}
		if err := call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_key_bounds(lo, hi, k.id) }); err != nil {
			return err
		}
		return bindError(ErrOutOfRange, fmt.Sprintf("%s (%s) is out of range [%d, %d]", name, v, lo[0], hi[0]))
	}
	float := func(f float64) error {
		switch {
		case real && s.setReal != nil:
			return call(func() raw.Enum_SS_llmmem_status { return s.setReal(k.id, f) })
		case !real && f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63:
			return integer(int64(f)) // 70e9 parameters
		case !real && f == math.Trunc(f) && !math.IsInf(f, 0):
			return outOfRange(strconv.FormatFloat(f, 'g', -1, 64))
		default:
			return text(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	// A list key (tensor_split) from numbers; the library checks them and names what is wrong.
	list := func(values []float64) error {
		if k.kind != int64(raw.LLMMEM_TYPE_LIST) || s.setList == nil {
			return bindError(ErrInvalidArgument,
				fmt.Sprintf("%s: cannot set a %T; only a list key (tensor_split) takes a slice of numbers", name, value))
		}
		return call(func() raw.Enum_SS_llmmem_status { return s.setList(k.id, values) })
	}
	switch v := value.(type) {
	case []float64:
		return list(append([]float64(nil), v...))
	case []float32:
		values := make([]float64, len(v))
		for i, x := range v {
			values[i] = float64(x)
		}
		return list(values)
	case []int:
		values := make([]float64, len(v))
		for i, x := range v {
			values[i] = float64(x)
		}
		return list(values)
	case []int64:
		values := make([]float64, len(v))
		for i, x := range v {
			values[i] = float64(x)
		}
		return list(values)
	case bool:
		if k.kind == int64(raw.LLMMEM_TYPE_BOOL) {
			if v {
				return integer(1)
			}
			return integer(0)
		}
		return text(strconv.FormatBool(v))
	case int:
		return integer(int64(v))
	case int8:
		return integer(int64(v))
	case int16:
		return integer(int64(v))
	case int32:
		return integer(int64(v))
	case int64:
		return integer(v)
	case uint, uint8, uint16, uint32, uint64, uintptr:
		u, _ := strconv.ParseUint(fmt.Sprint(v), 10, 64)
		if u > math.MaxInt64 {
			if real {
				return float(float64(u))
			}
			return outOfRange(strconv.FormatUint(u, 10))
		}
		return integer(int64(u))
	case float32:
		return float(float64(v))
	case float64:
		return float(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return integer(n)
		}
		if f, err := v.Float64(); err == nil {
			return float(f)
		}
		return text(v.String())
	case string:
		return text(v)
	case []string:
		return text(strings.Join(v, ","))
	default:
		return bindError(ErrInvalidArgument,
			fmt.Sprintf("%s: cannot set a %T; give an integer, float, bool, string, []string or (a list key) []float64", name, value))
	}
}

// get reads a key: int64 for integers, bool, string for choices and flags ("q,v"), float64
// for reals, []float64 for lists (empty when not set).
func (s *setters) get(name string) (any, error) {
	k, err := LookupKey(name)
	if err != nil {
		return nil, err
	}
	if k.kind == int64(raw.LLMMEM_TYPE_LIST) {
		if s.getList == nil {
			return nil, bindError(ErrUnsupported, fmt.Sprintf("%s: the %s has no list keys", name, s.object))
		}
		count := []uint64{0}
		if err := call(func() raw.Enum_SS_llmmem_status { return s.getList(nil, count, k.id) }); err != nil {
			return nil, err
		}
		values := make([]float64, count[0])
		if len(values) > 0 {
			if err := call(func() raw.Enum_SS_llmmem_status { return s.getList(values, count, k.id) }); err != nil {
				return nil, err
			}
		}
		return values, nil
	}
	if k.kind == int64(raw.LLMMEM_TYPE_REAL) {
		if s.getReal == nil {
			return nil, bindError(ErrUnsupported, fmt.Sprintf("%s: the %s has no real-valued keys", name, s.object))
		}
		out := []float64{0}
		if err := call(func() raw.Enum_SS_llmmem_status { return s.getReal(out, k.id) }); err != nil {
			return nil, err
		}
		return out[0], nil
	}
	out := []int64{0}
	if err := call(func() raw.Enum_SS_llmmem_status { return s.getInt(out, k.id) }); err != nil {
		return nil, err
	}
	v := out[0]
	switch k.kind {
	case int64(raw.LLMMEM_TYPE_BOOL):
		return v != 0, nil
	case int64(raw.LLMMEM_TYPE_CHOICE):
		if name := raw.Llmmem_choice_name(k.id, v); name != "" {
			return name, nil
		}
	case int64(raw.LLMMEM_TYPE_FLAGS):
		var names []string
		for bit := 0; bit < 62; bit++ {
			if v>>bit&1 != 0 {
				n := raw.Llmmem_choice_name(k.id, int64(1)<<bit)
				if n == "" {
					n = strconv.FormatInt(int64(1)<<bit, 10)
				}
				names = append(names, n)
			}
		}
		return strings.Join(names, ","), nil
	}
	return v, nil
}

// handle is what the types holding a C handle share: a lock (estimates read, Set and Close
// write) and the state of the handle.
//
// sync.RWMutex prefers writers: once Lock waits, new RLock calls wait behind it, so a Set
// or a Close is not starved by goroutines estimating in a loop. The price is that read
// locks must not nest on one object (a reader waiting behind a writer that waits for it),
// and that objects must be locked in one order wherever several are held: model, hardware,
// strategy, then checkpoint. Every function here holds at most one lock per object, in that
// order.
type handle struct {
	mu     sync.RWMutex
	open   bool // made by a constructor of this package
	closed bool
}

// state is the error of a handle that cannot be used: closed, or a zero value this package
// did not make. The caller holds mu.
func (h *handle) state(typ string) error {
	switch {
	case h.closed:
		return bindError(ErrInvalidArgument, typ+" is closed")
	case !h.open:
		return bindError(ErrInvalidArgument, typ+" was not made by this package (a zero value): use its New or Open function")
	}
	return nil
}

func (h *handle) write(typ string, f func() error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.state(typ); err != nil {
		return err
	}
	return f()
}

func (h *handle) read(typ string, f func() error) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if err := h.state(typ); err != nil {
		return err
	}
	return f()
}

// closeWith frees the handle once (free runs under the write lock); later calls do nothing.
func (h *handle) closeWith(free func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open && !h.closed {
		free()
		track(-1)
	}
	h.closed = true
}

// errNil is the error of a nil pointer given as a parameter or a receiver.
func errNil(fn, param string) error {
	return bindError(ErrInvalidArgument, fmt.Sprintf("%s: %s is nil", fn, param))
}

// ---------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------

// Model is a model description: a preset, a config.json, a GGUF file's metadata, or keys set
// one by one. Close it when done.
type Model struct {
	handle
	h raw.ModelHandle
}

func newModel(h raw.ModelHandle) *Model {
	track(1)
	m := &Model{h: h}
	m.open = true
	runtime.SetFinalizer(m, (*Model).Close)
	return m
}

// reading and writing run f under the model's lock; a nil model is an error naming fn.
func (m *Model) reading(fn string, f func() error) error {
	if m == nil {
		return errNil(fn, "model")
	}
	return m.read("model", f)
}

func (m *Model) writing(fn string, f func() error) error {
	if m == nil {
		return errNil(fn, "model")
	}
	return m.write("model", f)
}

// NewModel returns an empty model (model_type "custom"), to be described key by key.
func NewModel() (*Model, error) {
	h, err := create(raw.Llmmem_bind_model_new)
	if err != nil {
		return nil, err
	}
	return newModel(h), nil
}

// NewModelFromPreset returns a model from the catalog (see ModelPresets).
func NewModelFromPreset(name string) (*Model, error) {
	if err := checkText("preset", name); err != nil {
		return nil, err
	}
	h, err := create(func() raw.ModelHandle { return raw.Llmmem_bind_model_from_preset(name) })
	if err != nil {
		return nil, err
	}
	return newModel(h), nil
}

// NewModelFromHFConfig reads a Hugging Face config.json (a file, or a folder holding one).
func NewModelFromHFConfig(path string) (*Model, error) {
	if err := checkText("path", path); err != nil {
		return nil, err
	}
	h, err := create(func() raw.ModelHandle { return raw.Llmmem_bind_model_from_hf_config(path) })
	if err != nil {
		return nil, err
	}
	return newModel(h), nil
}

// NewModelFromHFConfigText reads the text of a config.json.
func NewModelFromHFConfigText(text string) (*Model, error) {
	h, err := create(func() raw.ModelHandle { return raw.Llmmem_bind_model_from_hf_config_text(text) })
	if err != nil {
		return nil, err
	}
	return newModel(h), nil
}

// NewModelFromGGUF returns the model a GGUF file's metadata describes, its weights the exact
// bytes of the file's tensors (as llmmem estimate --gguf).
func NewModelFromGGUF(path string) (*Model, error) {
	ck, err := OpenGGUF(path)
	if err != nil {
		return nil, err
	}
	defer ck.Close()
	m, err := ck.Model()
	if err != nil {
		return nil, err
	}
	if err := m.UseCheckpoint(ck); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func (m *Model) setters() *setters {
	h := m.h
	return &setters{
		object: "model",
		setInt: func(k raw.Enum_SS_llmmem_key, v int64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_model_set_int(h, k, v)
		},
		setText: func(n, v string) raw.Enum_SS_llmmem_status { return raw.Llmmem_model_set_text(h, n, v) },
		getInt: func(out []int64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_model_get_int(out, h, k)
		},
	}
}

// Set sets a model key by name ("num_key_value_heads", 8).
func (m *Model) Set(key string, value any) error {
	return m.writing("Model.Set", func() error { return m.setters().set(key, value) })
}

// Get reads a model key: int64, bool, or string for choices and flags.
func (m *Model) Get(key string) (v any, err error) {
	err = m.reading("Model.Get", func() error { v, err = m.setters().get(key); return err })
	return v, err
}

// Name is the preset the model came from, the path of the config.json, safetensors checkpoint or
// GGUF file it was read from, a config text's _name_or_path, or "" for a model built key by key.
func (m *Model) Name() string {
	var name string
	_ = m.reading("Model.Name", func() error { name = raw.Llmmem_model_name(m.h); return nil })
	return name
}

// GroupCount is the exact parameter count of one group ("embedding", "attention", ...).
type GroupCount struct {
	Group string
	Count uint64
}

// Parameters gives the exact parameters per group, in the library's order.
func (m *Model) Parameters() ([]GroupCount, error) {
	var out []GroupCount
	err := m.reading("Model.Parameters", func() error {
		for g := 0; g < int(raw.Llmmem_param_group_count()); g++ {
			n := []uint64{0}
			grp := raw.Enum_SS_llmmem_param_group(g)
			if err := call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_parameters(n, m.h, grp) }); err != nil {
				return err
			}
			out = append(out, GroupCount{Group: raw.Llmmem_param_group_name(grp), Count: n[0]})
		}
		return nil
	})
	return out, err
}

// TotalParameters is the exact parameter count of the model.
func (m *Model) TotalParameters() (uint64, error) {
	n := []uint64{0}
	err := m.reading("Model.TotalParameters", func() error {
		return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_total_parameters(n, m.h) })
	})
	return n[0], err
}

// ActiveParameters counts the parameters used for one token (all but unchosen experts).
func (m *Model) ActiveParameters() (uint64, error) {
	n := []uint64{0}
	err := m.reading("Model.ActiveParameters", func() error {
		return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_active_parameters(n, m.h) })
	})
	return n[0], err
}

// CheckpointParameters counts the parameters the checkpoint stores: the model's and its
// multi-token-prediction modules (num_nextn_predict_layers).
func (m *Model) CheckpointParameters() (uint64, error) {
	n := []uint64{0}
	err := m.reading("Model.CheckpointParameters", func() error {
		return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_checkpoint_parameters(n, m.h) })
	})
	return n[0], err
}

// UseCheckpoint makes the model's weights the bytes the checkpoint stores.
func (m *Model) UseCheckpoint(ck *Checkpoint) error {
	if ck == nil {
		return errNil("Model.UseCheckpoint", "checkpoint")
	}
	return m.writing("Model.UseCheckpoint", func() error { // model, then checkpoint (see handle)
		return ck.read("checkpoint", func() error {
			return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_use_checkpoint(m.h, ck.h) })
		})
	})
}

// SetLayerTypes sets each decoder layer's attention, as Hugging Face's layer_types:
// "full_attention" or "sliding_attention" per layer, for layers that follow no period; an
// empty slice removes it.
func (m *Model) SetLayerTypes(layerTypes []string) error {
	text := strings.Join(layerTypes, ",")
	return m.writing("Model.SetLayerTypes", func() error {
		return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_model_set_layer_types(m.h, text) })
	})
}

// Clone returns an independent copy.
func (m *Model) Clone() (*Model, error) {
	var c *Model
	err := m.reading("Model.Clone", func() error {
		h, err := create(func() raw.ModelHandle { return raw.Llmmem_bind_model_clone(m.h) })
		if err == nil {
			c = newModel(h)
		}
		return err
	})
	return c, err
}

// Close frees the C model; later calls return an error. Closing twice is fine.
func (m *Model) Close() error {
	if m == nil {
		return errNil("Model.Close", "model")
	}
	m.closeWith(func() {
		raw.DeleteModelHandle(m.h)
		m.h = nil
		runtime.SetFinalizer(m, nil)
	})
	return nil
}

// ---------------------------------------------------------------------------
// Hardware
// ---------------------------------------------------------------------------

// Hardware is a device description: a preset, or keys set one by one. Close it when done.
type Hardware struct {
	handle
	h raw.HardwareHandle
}

func newHardware(h raw.HardwareHandle) *Hardware {
	track(1)
	hw := &Hardware{h: h}
	hw.open = true
	runtime.SetFinalizer(hw, (*Hardware).Close)
	return hw
}

func (hw *Hardware) reading(fn string, f func() error) error {
	if hw == nil {
		return errNil(fn, "hardware")
	}
	return hw.read("hardware", f)
}

func (hw *Hardware) writing(fn string, f func() error) error {
	if hw == nil {
		return errNil(fn, "hardware")
	}
	return hw.write("hardware", f)
}

// NewHardware returns a device with no memory set (set "memory_bytes" before estimating).
func NewHardware() (*Hardware, error) {
	h, err := create(raw.Llmmem_bind_hardware_new)
	if err != nil {
		return nil, err
	}
	return newHardware(h), nil
}

// NewHardwareFromPreset returns a device from the catalog (see HardwarePresets).
func NewHardwareFromPreset(name string) (*Hardware, error) {
	if err := checkText("preset", name); err != nil {
		return nil, err
	}
	h, err := create(func() raw.HardwareHandle { return raw.Llmmem_bind_hardware_from_preset(name) })
	if err != nil {
		return nil, err
	}
	return newHardware(h), nil
}

func (hw *Hardware) setters() *setters {
	h := hw.h
	return &setters{
		object: "hardware",
		setInt: func(k raw.Enum_SS_llmmem_key, v int64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_hardware_set_int(h, k, v)
		},
		setReal: func(k raw.Enum_SS_llmmem_key, v float64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_hardware_set_real(h, k, v)
		},
		setText: func(n, v string) raw.Enum_SS_llmmem_status { return raw.Llmmem_hardware_set_text(h, n, v) },
		getInt: func(out []int64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_hardware_get_int(out, h, k)
		},
		getReal: func(out []float64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_hardware_get_real(out, h, k)
		},
	}
}

// Set sets a hardware key by name ("devices_per_node", 8; "memory_bytes", "80GiB").
func (hw *Hardware) Set(key string, value any) error {
	return hw.writing("Hardware.Set", func() error { return hw.setters().set(key, value) })
}

// Get reads a hardware key: int64, float64 for fractions, bool, or string for choices.
func (hw *Hardware) Get(key string) (v any, err error) {
	err = hw.reading("Hardware.Get", func() error { v, err = hw.setters().get(key); return err })
	return v, err
}

// Name is the preset the device came from.
func (hw *Hardware) Name() string {
	var name string
	_ = hw.reading("Hardware.Name", func() error { name = raw.Llmmem_hardware_name(hw.h); return nil })
	return name
}

// Clone returns an independent copy.
func (hw *Hardware) Clone() (*Hardware, error) {
	var c *Hardware
	err := hw.reading("Hardware.Clone", func() error {
		h, err := create(func() raw.HardwareHandle { return raw.Llmmem_bind_hardware_clone(hw.h) })
		if err == nil {
			c = newHardware(h)
		}
		return err
	})
	return c, err
}

// Close frees the C hardware; later calls return an error. Closing twice is fine.
func (hw *Hardware) Close() error {
	if hw == nil {
		return errNil("Hardware.Close", "hardware")
	}
	hw.closeWith(func() {
		raw.DeleteHardwareHandle(hw.h)
		hw.h = nil
		runtime.SetFinalizer(hw, nil)
	})
	return nil
}

// ---------------------------------------------------------------------------
// Strategy
// ---------------------------------------------------------------------------

// Strategy says what runs and how (mode, formats, batch, parallelism, ...): keys by name.
// Close it when done.
type Strategy struct {
	handle
	h raw.StrategyHandle
}

func newStrategy(h raw.StrategyHandle) *Strategy {
	track(1)
	s := &Strategy{h: h}
	s.open = true
	runtime.SetFinalizer(s, (*Strategy).Close)
	return s
}

func (s *Strategy) reading(fn string, f func() error) error {
	if s == nil {
		return errNil(fn, "strategy")
	}
	return s.read("strategy", f)
}

func (s *Strategy) writing(fn string, f func() error) error {
	if s == nil {
		return errNil(fn, "strategy")
	}
	return s.write("strategy", f)
}

// NewStrategy returns single-device inference in the model's own dtype.
func NewStrategy() (*Strategy, error) {
	h, err := create(raw.Llmmem_bind_strategy_new)
	if err != nil {
		return nil, err
	}
	return newStrategy(h), nil
}

func (s *Strategy) setters() *setters {
	h := s.h
	return &setters{
		object: "strategy",
		setInt: func(k raw.Enum_SS_llmmem_key, v int64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_set_int(h, k, v)
		},
		setReal: func(k raw.Enum_SS_llmmem_key, v float64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_set_real(h, k, v)
		},
		setText: func(n, v string) raw.Enum_SS_llmmem_status { return raw.Llmmem_strategy_set_text(h, n, v) },
		getInt: func(out []int64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_get_int(out, h, k)
		},
		getReal: func(out []float64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_get_real(out, h, k)
		},
		setList: func(k raw.Enum_SS_llmmem_key, values []float64) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_set_list(h, k, values)
		},
		getList: func(values []float64, count []uint64, k raw.Enum_SS_llmmem_key) raw.Enum_SS_llmmem_status {
			return raw.Llmmem_strategy_get_list(values, count, h, k)
		},
	}
}

// Set sets a strategy key by name ("mode", "training"; "tensor_parallel", 8). A list key takes
// text or numbers: ("tensor_split", "3,1") or ("tensor_split", []float64{3, 1}).
func (s *Strategy) Set(key string, value any) error {
	return s.writing("Strategy.Set", func() error { return s.setters().set(key, value) })
}

// Get reads a strategy key: int64, float64 for fractions, bool, string for choices and flags,
// or []float64 for a list key (tensor_split; empty when not set).
func (s *Strategy) Get(key string) (v any, err error) {
	err = s.reading("Strategy.Get", func() error { v, err = s.setters().get(key); return err })
	return v, err
}

// Clone returns an independent copy.
func (s *Strategy) Clone() (*Strategy, error) {
	var c *Strategy
	err := s.reading("Strategy.Clone", func() error {
		h, err := create(func() raw.StrategyHandle { return raw.Llmmem_bind_strategy_clone(s.h) })
		if err == nil {
			c = newStrategy(h)
		}
		return err
	})
	return c, err
}

// Close frees the C strategy; later calls return an error. Closing twice is fine.
func (s *Strategy) Close() error {
	if s == nil {
		return errNil("Strategy.Close", "strategy")
	}
	s.closeWith(func() {
		raw.DeleteStrategyHandle(s.h)
		s.h = nil
		runtime.SetFinalizer(s, nil)
	})
	return nil
}
