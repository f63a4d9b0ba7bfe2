package llmmem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"llmmem/internal/raw"
)

// Amount is a named byte count (a component of a report, a part of the training peak).
type Amount struct {
	Name  string
	Bytes uint64
}

// Report is an estimate: the memory of the most loaded device per component, the total,
// the capacity and whether it fits. Every number comes from the C library's report; JSON
// returns the library's own JSON text, byte for byte.
type Report struct {
	Model               string   // the model's name as the report gives it
	Hardware            string   // the device's name
	Components          []Amount // bytes per component, in the library's order
	TotalBytes          uint64
	CapacityBytes       uint64 // memory of one device usable by the job
	Fits                bool
	Parameters          []GroupCount // exact parameters per group, as counted for this estimate
	TotalParameters     uint64
	ActiveParameters    uint64
	TrainableParameters uint64
	PeakPhase           string   // the moment the components describe: one of PhaseNames ("prefill", "decode": generate)
	PeakLayer           int64    // the decoder layer of a backward, prefill or decode peak, or -1
	Peak                []Amount // the parts of the training peak, as the JSON names them
	Stages              []Stage  // one per pipeline stage (one without pipeline parallelism)
	MostLoadedStage     int
	HostBytes           uint64   // host memory per node (offloaded state, start-up copies)
	NVMeBytes           uint64   // NVMe bytes per node taken by offloaded state
	CommBytes           []Amount // bytes a rank of the most loaded stage sends per step, per kind
	json                string
}

// Stage is what one device of a pipeline stage holds.
type Stage struct {
	FirstLayer uint64   // its first decoder layer
	Layers     uint64   // decoder layers it holds
	Components []Amount // bytes per component
	TotalBytes uint64
}

// Estimate computes the memory of the most loaded device. The error names the key and the
// value at fault (errors.Is(err, llmmem.ErrIncompatible) for heads not divisible by
// tensor_parallel). Many goroutines may estimate from the same inputs at once.
func Estimate(model *Model, hardware *Hardware, strategy *Strategy) (*Report, error) {
	var report *Report
	err := readInputs("Estimate", model, hardware, strategy, func() error {
		var err error
		report, err = estimate(model.h, hardware.h, strategy.h)
		return err
	})
	return report, err
}

func estimate(m raw.ModelHandle, hw raw.HardwareHandle, s raw.StrategyHandle) (*Report, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := raw.Llmmem_bind_report_new()
	if h.Swigcptr() == 0 {
		return nil, lastError(raw.Llmmem_bind_last_factory_status())
	}
	track(1)
	defer func() {
		raw.DeleteReportHandle(h)
		track(-1)
	}()
	if err := lastError(raw.Llmmem_estimate(h, m, hw, s)); err != nil {
		return nil, err
	}
	text := raw.Llmmem_bind_report_json(h)
	if text == "" {
		return nil, lastError(raw.Llmmem_bind_last_factory_status())
	}
	r := &Report{
		TotalBytes:          raw.Llmmem_report_total_bytes(h),
		CapacityBytes:       raw.Llmmem_report_capacity_bytes(h),
		Fits:                raw.Llmmem_report_fits(h) != 0,
		TotalParameters:     raw.Llmmem_report_total_parameters(h),
		ActiveParameters:    raw.Llmmem_report_active_parameters(h),
		TrainableParameters: raw.Llmmem_report_trainable_parameters(h),
		PeakPhase:           phaseName(raw.Llmmem_report_peak_phase(h)),
		PeakLayer:           raw.Llmmem_report_peak_layer(h),
		json:                text,
	}
	for c := 0; c < int(raw.Llmmem_component_count()); c++ {
		comp := raw.Enum_SS_llmmem_component(c)
		r.Components = append(r.Components, Amount{Name: raw.Llmmem_component_name(comp), Bytes: raw.Llmmem_report_bytes(h, comp)})
	}
	for g := 0; g < int(raw.Llmmem_param_group_count()); g++ {
		grp := raw.Enum_SS_llmmem_param_group(g)
		r.Parameters = append(r.Parameters, GroupCount{Group: raw.Llmmem_param_group_name(grp), Count: raw.Llmmem_report_parameters(h, grp)})
	}
	for st := int64(0); st < raw.Llmmem_report_stage_count(h); st++ {
		first, count := []uint64{0}, []uint64{0}
		if err := lastError(raw.Llmmem_report_stage_layers(first, count, h, st)); err != nil {
			return nil, err
		}
		stage := Stage{FirstLayer: first[0], Layers: count[0], TotalBytes: raw.Llmmem_report_stage_total_bytes(h, st)}
		for c := 0; c < int(raw.Llmmem_component_count()); c++ {
			comp := raw.Enum_SS_llmmem_component(c)
			stage.Components = append(stage.Components,
				Amount{Name: raw.Llmmem_component_name(comp), Bytes: raw.Llmmem_report_stage_bytes(h, st, comp)})
		}
		r.Stages = append(r.Stages, stage)
	}
	r.MostLoadedStage = int(raw.Llmmem_report_most_loaded_stage(h))
	r.HostBytes = raw.Llmmem_report_host_bytes(h)
	r.NVMeBytes = raw.Llmmem_report_nvme_bytes(h)
	for k := 0; ; k++ {
		kind := raw.Enum_SS_llmmem_comm(k)
		name := raw.Llmmem_comm_name(kind)
		if name == "" {
			break
		}
		r.CommBytes = append(r.CommBytes, Amount{Name: name, Bytes: raw.Llmmem_report_comm_bytes(h, kind)})
	}
	// Names and the peak's parts come from the library's JSON, in its order.
	var head struct {
		Model        string          `json:"model"`
		Hardware     string          `json:"hardware"`
		TrainingPeak json.RawMessage `json:"training_peak"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return nil, bindError(ErrParse, "the library's JSON report: "+err.Error())
	}
	r.Model, r.Hardware = head.Model, head.Hardware
	if len(head.TrainingPeak) > 0 {
		_, parts, err := decodePeak(head.TrainingPeak)
		if err != nil {
			return nil, bindError(ErrParse, "the library's JSON report: "+err.Error())
		}
		r.Peak = parts
	}
	return r, nil
}

// decodePeak reads "training_peak": its phase and its byte counts in order.
func decodePeak(msg json.RawMessage) (string, []Amount, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return "", nil, err
	}
	phase := "static"
	var parts []Amount
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", nil, err
		}
		name, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return "", nil, err
		}
		switch x := v.(type) {
		case string:
			if name == "phase" {
				phase = x
			}
		case json.Number:
			if name == "trainable_parameters" || name == "layer" { // not bytes (layer: -1 or a layer)
				continue
			}
			var n uint64
			if _, err := fmt.Sscan(x.String(), &n); err != nil {
				return "", nil, err
			}
			parts = append(parts, Amount{Name: name, Bytes: n})
		}
	}
	return phase, parts, nil
}

// JSON is the library's JSON report, byte for byte as `llmmem estimate --json` prints it
// ("" for a nil or zero Report).
func (r *Report) JSON() string {
	if r == nil {
		return ""
	}
	return r.json
}

// Bytes gives one component's bytes ("weights", "optimizer_states", ...).
func (r *Report) Bytes(component string) (uint64, bool) {
	if r == nil {
		return 0, false
	}
	for _, c := range r.Components {
		if c.Name == component {
			return c.Bytes, true
		}
	}
	return 0, false
}

// String is a table of the non-zero components, the total and the capacity, in bytes, GiB
// (2^30 bytes) and GB (10^9 bytes).
func (r *Report) String() string {
	if r == nil {
		return "<nil report>"
	}
	var b strings.Builder
	fits := "fits"
	if !r.Fits {
		fits = "does not fit"
	}
	fmt.Fprintf(&b, "%s on %s: %s\n", r.Model, r.Hardware, fits)
	fmt.Fprintf(&b, "%-18s %20s %10s %10s\n", "component", "bytes", "GiB", "GB")
	row := func(name string, n uint64) {
		fmt.Fprintf(&b, "%-18s %20d %10.2f %10.2f\n", name, n, float64(n)/(1<<30), float64(n)/1e9)
	}
	for _, c := range r.Components {
		if c.Bytes != 0 {
			row(c.Name, c.Bytes)
		}
	}
	row("total", r.TotalBytes)
	row("capacity", r.CapacityBytes)
	return b.String()
}

// ---------------------------------------------------------------------------
// Checkpoints
// ---------------------------------------------------------------------------

// Checkpoint holds the headers of a safetensors checkpoint or a GGUF file: the stored
// tensors and their exact bytes (tensor data is never read). Close it when done.
type Checkpoint struct {
	handle
	h raw.CheckpointHandle
}

func newCheckpoint(h raw.CheckpointHandle) *Checkpoint {
	track(1)
	ck := &Checkpoint{h: h}
	ck.open = true
	runtime.SetFinalizer(ck, (*Checkpoint).Close)
	return ck
}

func (ck *Checkpoint) reading(fn string, f func() error) error {
	if ck == nil {
		return errNil(fn, "checkpoint")
	}
	return ck.read("checkpoint", f)
}

// OpenSafetensors reads a .safetensors file, a *.index.json, or a folder holding one.
func OpenSafetensors(path string) (*Checkpoint, error) {
	if err := checkText("path", path); err != nil {
		return nil, err
	}
	h, err := create(func() raw.CheckpointHandle { return raw.Llmmem_bind_checkpoint_from_safetensors(path) })
	if err != nil {
		return nil, err
	}
	return newCheckpoint(h), nil
}

// OpenGGUF reads a GGUF file's header.
func OpenGGUF(path string) (*Checkpoint, error) {
	if err := checkText("path", path); err != nil {
		return nil, err
	}
	h, err := create(func() raw.CheckpointHandle { return raw.Llmmem_bind_checkpoint_from_gguf(path) })
	if err != nil {
		return nil, err
	}
	return newCheckpoint(h), nil
}

// ParseSafetensorsHeader reads one safetensors header from memory (8-byte length, JSON).
func ParseSafetensorsHeader(data []byte) (*Checkpoint, error) {
	text := string(data)
	h, err := create(func() raw.CheckpointHandle { return raw.Llmmem_bind_checkpoint_from_safetensors_bytes(text) })
	if err != nil {
		return nil, err
	}
	return newCheckpoint(h), nil
}

// TensorCount is the number of stored tensors (0 for a nil or closed checkpoint).
func (ck *Checkpoint) TensorCount() int {
	n := 0
	_ = ck.reading("Checkpoint.TensorCount", func() error { n = int(raw.Llmmem_checkpoint_tensor_count(ck.h)); return nil })
	return n
}

// TotalBytes is the bytes of every stored tensor (0 for a nil or closed checkpoint).
func (ck *Checkpoint) TotalBytes() uint64 {
	var n uint64
	_ = ck.reading("Checkpoint.TotalBytes", func() error { n = raw.Llmmem_checkpoint_total_bytes(ck.h); return nil })
	return n
}

// Tensor is one stored tensor.
type Tensor struct {
	Name     string
	Dtype    string
	Elements uint64
	Bytes    uint64
}

// Tensors lists the stored tensors in file order.
func (ck *Checkpoint) Tensors() ([]Tensor, error) {
	var out []Tensor
	err := ck.reading("Checkpoint.Tensors", func() error {
		for i := 0; i < int(raw.Llmmem_checkpoint_tensor_count(ck.h)); i++ {
			elements, nbytes, role, group := []uint64{0}, []uint64{0}, []int64{0}, []int64{0}
			idx := int64(i)
			if err := call(func() raw.Enum_SS_llmmem_status {
				return raw.Llmmem_bind_checkpoint_tensor_sizes(elements, nbytes, role, group, ck.h, idx)
			}); err != nil {
				return err
			}
			out = append(out, Tensor{
				Name:     raw.Llmmem_bind_checkpoint_tensor_name(ck.h, idx),
				Dtype:    raw.Llmmem_bind_checkpoint_tensor_dtype(ck.h, idx),
				Elements: elements[0],
				Bytes:    nbytes[0],
			})
		}
		return nil
	})
	return out, err
}

// Model returns the model the checkpoint's own metadata describes (GGUF).
func (ck *Checkpoint) Model() (*Model, error) {
	var m *Model
	err := ck.reading("Checkpoint.Model", func() error {
		h, err := create(func() raw.ModelHandle { return raw.Llmmem_bind_checkpoint_model(ck.h) })
		if err == nil {
			m = newModel(h)
		}
		return err
	})
	return m, err
}

// Verify checks the checkpoint against a model's inventory: an ErrIncompatible error names
// each parameter group that differs.
func (ck *Checkpoint) Verify(m *Model) error {
	if ck == nil {
		return errNil("Checkpoint.Verify", "checkpoint")
	}
	// The model first, then the checkpoint, as UseCheckpoint locks them: in the other order
	// a Verify, a UseCheckpoint and a Close of the checkpoint could wait on one another.
	return m.reading("Checkpoint.Verify", func() error {
		return ck.read("checkpoint", func() error {
			return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_checkpoint_verify(ck.h, m.h) })
		})
	})
}

// Close frees the C checkpoint. Closing twice is fine.
func (ck *Checkpoint) Close() error {
	if ck == nil {
		return errNil("Checkpoint.Close", "checkpoint")
	}
	ck.closeWith(func() {
		raw.DeleteCheckpointHandle(ck.h)
		ck.h = nil
		runtime.SetFinalizer(ck, nil)
	})
	return nil
}
