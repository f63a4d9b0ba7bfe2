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
	CapacityBytes       uint64       // memory of one device usable by the job
	DeviceTotalBytes    uint64       // the device's total as CUDA reports it (cuda_total_bytes, else memory_bytes)
	Fits                bool         // after EstimateRuns: the job runs, as the caching allocator serves it
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
	replay              *replay // EstimateRuns: the caching allocator's replay; nil otherwise
	notReplayed         string  // EstimateRuns of a job the replay does not model: why
}

// replay holds the figures of the caching allocator's replay (llmmem_estimate_runs).
type replay struct {
	runs                                   bool
	allocated, reserved, reservedLow, free uint64
	decodeStride, oomRequest               uint64
	oomAfter                               string
	runsExpandable                         int // 1, 0, or -1: not asked
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
		report, err = estimate(raw.Llmmem_estimate, model.h, hardware.h, strategy.h)
		return err
	})
	return report, err
}

// EstimateRuns says whether the job runs: the estimate, then the job's allocation tape (every
// tensor its framework allocates and frees: the model built, two training steps or the whole
// generate call) replayed through a model of PyTorch's CUDA caching allocator, under what CUDA
// reports as the device's total less the memory outside the allocator (llmmem_estimate_runs).
// The Report's Fits is then the replay's answer, and Runs, AllocatedBytes, ReservedBytes,
// ReservedFreeBytes, ReservedLowBytes, OutOfMemory, RunsExpandable and DecodeStride give its
// figures. Modelled for transformers on PyTorch 2.x on one CUDA device (framework hf_trainer:
// training, LoRA and generate).
//
// A job the replay does not model (another framework, several devices) returns the estimate
// and an error with ErrUnsupported naming what is not modelled: the report is not replayed,
// and its NotReplayed gives the same reason. Any other failure returns a nil report. Takes
// milliseconds: not for a search's inner loop.
func EstimateRuns(model *Model, hardware *Hardware, strategy *Strategy) (*Report, error) {
	var report *Report
	err := readInputs("EstimateRuns", model, hardware, strategy, func() error {
		var err error
		report, err = estimate(raw.Llmmem_estimate_runs, model.h, hardware.h, strategy.h)
		return err
	})
	return report, err
}

type estimateFunc func(raw.ReportHandle, raw.ModelHandle, raw.HardwareHandle, raw.StrategyHandle) raw.Enum_SS_llmmem_status

func estimate(run estimateFunc, m raw.ModelHandle, hw raw.HardwareHandle, s raw.StrategyHandle) (*Report, error) {
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
	st := run(h, m, hw, s)
	// not replayed (llmmem_estimate_runs): the estimate stands, with the reason
	notReplayed := st == raw.LLMMEM_ERR_UNSUPPORTED && raw.Llmmem_report_valid(h) != 0
	estimateErr := lastError(st)
	if estimateErr != nil && !notReplayed {
		return nil, estimateErr
	}
	text := raw.Llmmem_bind_report_json(h)
	if text == "" {
		return nil, lastError(raw.Llmmem_bind_last_factory_status())
	}
	r := &Report{
		TotalBytes:          raw.Llmmem_report_total_bytes(h),
		CapacityBytes:       raw.Llmmem_report_capacity_bytes(h),
		DeviceTotalBytes:    raw.Llmmem_report_device_total_bytes(h),
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
	if runs := raw.Llmmem_report_runs(h); runs >= 0 {
		r.replay = &replay{
			runs:           runs == 1,
			allocated:      raw.Llmmem_report_allocated_bytes(h),
			reserved:       raw.Llmmem_report_reserved_bytes(h),
			reservedLow:    raw.Llmmem_report_reserved_low_bytes(h),
			free:           raw.Llmmem_report_reserved_free_bytes(h),
			decodeStride:   raw.Llmmem_report_decode_stride(h),
			oomRequest:     raw.Llmmem_report_oom_request_bytes(h),
			oomAfter:       raw.Llmmem_report_oom_after(h),
			runsExpandable: raw.Llmmem_report_runs_expandable(h),
		}
	}
	if notReplayed {
		r.notReplayed = estimateErr.(*Error).Message
	}
	return r, estimateErr
}

// Replayed says whether the job was replayed through the caching allocator (EstimateRuns).
func (r *Report) Replayed() bool {
	return r != nil && r.replay != nil
}

// NotReplayed is why EstimateRuns did not replay the job (the library's message, as the
// ErrUnsupported error it returned says it); "" when it did, or for a report of Estimate.
func (r *Report) NotReplayed() string {
	if r == nil {
		return ""
	}
	return r.notReplayed
}

// Runs says whether the job runs as the caching allocator serves it: the reserved peak and the
// memory outside the allocator (the runtime_overhead component) within the device's total.
// replayed is false when the job was not replayed.
func (r *Report) Runs() (runs, replayed bool) {
	if !r.Replayed() {
		return false, false
	}
	return r.replay.runs, true
}

// AllocatedBytes is the allocator's allocated peak: the blocks handed out at their rounded sizes
// (of the placement ReservedBytes gives); false when not replayed.
func (r *Report) AllocatedBytes() (uint64, bool) {
	if !r.Replayed() {
		return 0, false
	}
	return r.replay.allocated, true
}

// ReservedBytes is the allocator's reserved peak: the segments it holds from the device (without
// expandable segments, the higher of the driver's two placements); false when not replayed.
func (r *Report) ReservedBytes() (uint64, bool) {
	if !r.Replayed() {
		return 0, false
	}
	return r.replay.reserved, true
}

// ReservedLowBytes is the lower placement's reserved peak (ReservedBytes where the placement does
// not matter); false when not replayed.
func (r *Report) ReservedLowBytes() (uint64, bool) {
	if !r.Replayed() {
		return 0, false
	}
	return r.replay.reservedLow, true
}

// ReservedFreeBytes is why reserved exceeds allocated: the segments' free blocks when the reserved
// peak was reached; false when not replayed.
func (r *Report) ReservedFreeBytes() (uint64, bool) {
	if !r.Replayed() {
		return 0, false
	}
	return r.replay.free, true
}

// OutOfMemory is the request that ran out of memory, in bytes, and when it came, in words
// ("step 2, layer 15's forward"); ok is false when the job runs or was not replayed.
func (r *Report) OutOfMemory() (requestBytes uint64, after string, ok bool) {
	if !r.Replayed() || r.replay.runs {
		return 0, "", false
	}
	return r.replay.oomRequest, r.replay.oomAfter, true
}

// RunsExpandable says, for a job that runs out of memory with expandable_segments off, whether it
// runs with expandable_segments on; asked is false otherwise.
func (r *Report) RunsExpandable() (runs, asked bool) {
	if !r.Replayed() || r.replay.runsExpandable < 0 {
		return false, false
	}
	return r.replay.runsExpandable == 1, true
}

// DecodeStride is the tokens each replayed decode step of a generate job stands for (1: every
// step replayed; a generation of more than 64 steps replays at most 64, the last always); 0 for a
// job without a generate loop; false when not replayed.
func (r *Report) DecodeStride() (uint64, bool) {
	if !r.Replayed() {
		return 0, false
	}
	return r.replay.decodeStride, true
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
	switch {
	case r.notReplayed != "":
		fmt.Fprintf(&b, "allocator: not replayed: %s\n", r.notReplayed)
	case r.replay != nil:
		a := r.replay
		row("allocated peak", a.allocated)
		row("reserved peak", a.reserved)
		row("  free blocks", a.free)
		if a.reservedLow != a.reserved {
			row("  placed upward", a.reservedLow)
		}
		outside, _ := r.Bytes("runtime_overhead")
		row("outside", outside)
		row("device total", r.DeviceTotalBytes)
		if a.runs {
			b.WriteString("runs: yes, as PyTorch's CUDA caching allocator serves it\n")
			break
		}
		fmt.Fprintf(&b, "runs: no, out of memory: a request of %d bytes after %s", a.oomRequest, a.oomAfter)
		if a.runsExpandable == 1 {
			b.WriteString("; it runs with expandable_segments on")
		}
		b.WriteString("\n")
	}
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
