package llmmem

import (
	"fmt"
	"runtime"
	"strings"

	"llmmem/internal/raw"
)

// ---------------------------------------------------------------------------
// Local inference: llama.cpp and ollama on one machine
// ---------------------------------------------------------------------------

// LocalDevice is what llama.cpp allocates on one device: a GPU, or the host (the last device).
type LocalDevice struct {
	Name          string   // as llama.cpp prints it: "CUDA0", "ROCm1", "Metal", "Vulkan0", "CPU"
	Host          bool     // the host (the CPU), always the last device
	Layers        uint64   // repeating layers placed there (the host's: those left on the CPU)
	Buffers       []Amount // bytes per buffer, in the library's order ("model", "kv", "recurrent", "compute", "output")
	TotalBytes    uint64   // every buffer of the device
	CapacityBytes uint64   // what it may hold: a GPU's memory less the runtime and fit_margin_bytes; the host's memory (0: unknown)
}

// Bytes gives one buffer's bytes ("model", "kv", "recurrent", "compute", "output").
func (d LocalDevice) Bytes(buffer string) (uint64, bool) {
	for _, b := range d.Buffers {
		if b.Name == buffer {
			return b.Bytes, true
		}
	}
	return 0, false
}

// Local is a local inference estimate: what llama.cpp (or ollama) allocates on every device of
// one machine. Values holds every number of the C result that is not per device, by name
// ("n_ctx", "kv_bytes", ...; "engine" as the llmmem_engine value, "flash_attn", "fits" and
// "host_unknown" as 0 or 1); Engine, FlashAttn, Fits and HostUnknown give those as a name and as
// bools. Devices lists the GPUs, then the host. JSON returns the library's own JSON. Close it when
// done.
type Local struct {
	handle
	h           raw.LocalHandle
	Values      []Amount      // every number of the result, in the library's order (LocalValueNames)
	Engine      string        // the engine resolved: "llama.cpp" or "ollama"
	FlashAttn   bool          // flash attention runs ("auto" resolved)
	Fits        bool          // every GPU keeps fit_margin_bytes free and the host holds its part
	HostUnknown bool          // the host holds part of the layers and its RAM is unknown: Fits false, verdict unknown
	Devices     []LocalDevice // the GPUs, then the host
	json        string
}

// LocalValueNames lists the numbers of a local result that are not per device, in the
// library's order ("engine", "n_ctx", ..., "fits", "shortfall"): the names of Local.Values and
// the keys of its JSON.
func LocalValueNames() []string {
	n := int(raw.Llmmem_local_value_count())
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, raw.Llmmem_local_value_name(raw.Enum_SS_llmmem_local_value(i)))
	}
	return out
}

// LocalBufferNames lists the buffers llama.cpp allocates per device, in the library's order
// ("model", "kv", "recurrent", "compute", "output").
func LocalBufferNames() []string {
	n := int(raw.Llmmem_local_buffer_count())
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, raw.Llmmem_local_buffer_name(raw.Enum_SS_llmmem_local_buffer(i)))
	}
	return out
}

// The questions of LocalSolve, by the names the command-line tool's `fit --json` gives them.
var localQuestions = []struct {
	name string
	q    raw.Enum_SS_llmmem_local_question
}{
	{"max_gpu_layers", raw.LLMMEM_LOCAL_MAX_GPU_LAYERS},
	{"max_context", raw.LLMMEM_LOCAL_MAX_CONTEXT},
	{"max_parallel", raw.LLMMEM_LOCAL_MAX_PARALLEL},
}

// LocalQuestions lists the questions LocalSolve answers: "max_gpu_layers", "max_context",
// "max_parallel".
func LocalQuestions() []string {
	out := make([]string, 0, len(localQuestions))
	for _, q := range localQuestions {
		out = append(out, q.name)
	}
	return out
}

// readLocalInputs runs f with the inputs read-locked, in the package's order (model, hardware,
// strategy, then checkpoint), and gives it the checkpoint's C handle (NULL when gguf is nil).
func readLocalInputs(fn string, model *Model, hardware *Hardware, strategy *Strategy, gguf *Checkpoint,
	f func(ck raw.CheckpointHandle) error) error {
	return readInputs(fn, model, hardware, strategy, func() error {
		if gguf == nil {
			return f(raw.SwigcptrCheckpointHandle(0))
		}
		return gguf.read("checkpoint", func() error { return f(gguf.h) })
	})
}

// LocalEstimate computes what llama.cpp (or ollama, with the strategy's engine "ollama")
// allocates on each device of one machine (the hardware's devices_per_node GPUs, then the host)
// for the model with the strategy's local keys (n_ctx, n_parallel, cache_type_k, n_gpu_layers,
// tensor_split, ...). gguf may be nil; a checkpoint read by OpenGGUF makes the model buffers its
// tensors' exact bytes. A layout that does not fit is a result (Fits false), not an error; the
// error of a setting llama.cpp refuses carries the library's message.
func LocalEstimate(model *Model, hardware *Hardware, strategy *Strategy, gguf *Checkpoint) (*Local, error) {
	var l *Local
	err := readLocalInputs("LocalEstimate", model, hardware, strategy, gguf, func(ck raw.CheckpointHandle) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h := raw.Llmmem_bind_local_new()
		if h.Swigcptr() == 0 {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		if err := lastError(raw.Llmmem_local_estimate(h, model.h, ck, hardware.h, strategy.h)); err != nil {
			raw.DeleteLocalHandle(h)
			return err
		}
		text := raw.Llmmem_bind_local_json(h)
		if text == "" {
			raw.DeleteLocalHandle(h)
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		track(1)
		l = &Local{
			h:           h,
			json:        text,
			Engine:      raw.Llmmem_choice_name(raw.LLMMEM_KEY_ENGINE, int64(raw.Llmmem_local_get(h, raw.LLMMEM_LOCAL_ENGINE))),
			FlashAttn:   raw.Llmmem_local_get(h, raw.LLMMEM_LOCAL_FLASH_ATTN) != 0,
			Fits:        raw.Llmmem_local_get(h, raw.LLMMEM_LOCAL_FITS) != 0,
			HostUnknown: raw.Llmmem_local_get(h, raw.LLMMEM_LOCAL_HOST_UNKNOWN) != 0,
		}
		l.open = true
		for i := 0; i < int(raw.Llmmem_local_value_count()); i++ {
			v := raw.Enum_SS_llmmem_local_value(i)
			l.Values = append(l.Values, Amount{Name: raw.Llmmem_local_value_name(v), Bytes: raw.Llmmem_local_get(h, v)})
		}
		buffers := int(raw.Llmmem_local_buffer_count())
		n := raw.Llmmem_local_device_count(h)
		for d := int64(0); d < n; d++ {
			dev := LocalDevice{
				Name:          raw.Llmmem_local_device_name(h, d),
				Host:          d == n-1,
				Layers:        raw.Llmmem_local_device_layers(h, d),
				Buffers:       make([]Amount, 0, buffers),
				TotalBytes:    raw.Llmmem_local_device_total(h, d),
				CapacityBytes: raw.Llmmem_local_device_capacity(h, d),
			}
			for b := 0; b < buffers; b++ {
				buf := raw.Enum_SS_llmmem_local_buffer(b)
				dev.Buffers = append(dev.Buffers, Amount{Name: raw.Llmmem_local_buffer_name(buf), Bytes: raw.Llmmem_local_bytes(h, d, buf)})
			}
			l.Devices = append(l.Devices, dev)
		}
		runtime.SetFinalizer(l, (*Local).Close)
		return nil
	})
	return l, err
}

// LocalSolve answers one question by searching the setting it names, every other setting as
// the strategy says: the largest value whose LocalEstimate fits, or 0 when none does. question
// is one of LocalQuestions: "max_gpu_layers" (n_gpu_layers; ollama: num_gpu), "max_context"
// (n_ctx; ollama: num_ctx), "max_parallel" (n_parallel with n_ctx per sequence kept; ollama:
// num_parallel). gguf may be nil, as for LocalEstimate.
func LocalSolve(question string, model *Model, hardware *Hardware, strategy *Strategy, gguf *Checkpoint) (int64, error) {
	var q raw.Enum_SS_llmmem_local_question
	found := false
	for _, lq := range localQuestions {
		if lq.name == question {
			q, found = lq.q, true
		}
	}
	if !found {
		return 0, bindError(ErrInvalidArgument, fmt.Sprintf("LocalSolve: question %q is not one of %s",
			question, strings.Join(LocalQuestions(), ", ")))
	}
	out := []int64{0}
	err := readLocalInputs("LocalSolve", model, hardware, strategy, gguf, func(ck raw.CheckpointHandle) error {
		return call(func() raw.Enum_SS_llmmem_status {
			return raw.Llmmem_local_solve(out, q, model.h, ck, hardware.h, strategy.h)
		})
	})
	return out[0], err
}

// Value gives one number of the result by name ("n_ctx", "kv_bytes", ...; LocalValueNames).
func (l *Local) Value(name string) (uint64, bool) {
	if l == nil {
		return 0, false
	}
	for _, v := range l.Values {
		if v.Name == name {
			return v.Bytes, true
		}
	}
	return 0, false
}

// Device gives the device of that name ("CUDA0", "CPU").
func (l *Local) Device(name string) (LocalDevice, bool) {
	if l != nil {
		for _, d := range l.Devices {
			if d.Name == name {
				return d, true
			}
		}
	}
	return LocalDevice{}, false
}

// JSON is the library's JSON, byte for byte as `llmmem serve --engine llama.cpp --json` prints
// it ("" for a nil Local).
func (l *Local) JSON() string {
	if l == nil {
		return ""
	}
	return l.json
}

// String is a table of the devices' buffers in bytes, with each device's total in GiB (2^30
// bytes) and GB (10^9 bytes).
func (l *Local) String() string {
	if l == nil {
		return "<nil local result>"
	}
	var b strings.Builder
	fits := "fits"
	if l.HostUnknown && !l.Fits {
		fits = "fit unknown (host RAM not known)"
	} else if !l.Fits {
		fits = "does not fit"
	}
	nctx, _ := l.Value("n_ctx")
	layers, _ := l.Value("n_gpu_layers")
	fmt.Fprintf(&b, "%s: n_ctx %d, n_gpu_layers %d: %s\n", l.Engine, nctx, layers, fits)
	fmt.Fprintf(&b, "%-8s %6s", "device", "layers")
	for _, name := range LocalBufferNames() {
		fmt.Fprintf(&b, " %15s", name)
	}
	fmt.Fprintf(&b, " %15s %8s %8s %15s\n", "total", "GiB", "GB", "capacity")
	for _, d := range l.Devices {
		fmt.Fprintf(&b, "%-8s %6d", d.Name, d.Layers)
		for _, buf := range d.Buffers {
			fmt.Fprintf(&b, " %15d", buf.Bytes)
		}
		fmt.Fprintf(&b, " %15d %8.2f %8.2f %15d\n", d.TotalBytes, float64(d.TotalBytes)/(1<<30),
			float64(d.TotalBytes)/1e9, d.CapacityBytes)
	}
	if !l.Fits {
		short, _ := l.Value("shortfall")
		fmt.Fprintf(&b, "short by %d bytes on the most over-committed device\n", short)
	}
	return b.String()
}

// Close frees the C result. Closing twice is fine.
func (l *Local) Close() error {
	if l == nil {
		return errNil("Local.Close", "local result")
	}
	l.closeWith(func() {
		raw.DeleteLocalHandle(l.h)
		l.h = nil
		runtime.SetFinalizer(l, nil)
	})
	return nil
}
