package llmmem

import (
	"fmt"
	"runtime"
	"strings"

	"llmmem/internal/raw"
)

// ---------------------------------------------------------------------------
// The step as a timeline
// ---------------------------------------------------------------------------

// TimelinePoint is one moment of a step on the most loaded device.
type TimelinePoint struct {
	Phase      string   // "forward", "loss", "backward", "recompute", "optimizer"; "static" for inference
	Layer      int64    // the decoder layer the moment follows or runs, or -1 (the loss, the optimizer)
	Components []Amount // bytes alive per component, in the library's order
	TotalBytes uint64
	// EstimateTimelineRuns only (0 otherwise): the training step (0 or 1) or the generate loop's
	// token (0: the prefill), and the segments the allocator reserves then plus the memory outside it.
	Step          uint64
	ReservedBytes uint64
}

// Timeline is the memory of the most loaded device at every moment of one step: after each
// decoder layer's forward, the loss's forward and backward, each layer's backward from the
// last, the optimizer step (inference: the estimate's one moment). Its highest point, Points[
// PeakIndex], is the estimate's total. Every number comes from the C timeline's getters; JSON
// returns the library's own JSON text, byte for byte as `llmmem timeline --json` prints it.
type Timeline struct {
	Points    []TimelinePoint
	PeakIndex int  // the highest point (the first, on a tie)
	Stage     int  // the pipeline stage followed (the most loaded)
	Replayed  bool // EstimateTimelineRuns: the caching allocator's moments, with Step and ReservedBytes
	json      string
}

// EstimateTimeline computes the step's timeline of the job (llmmem_estimate_timeline), with
// the validation and errors of Estimate. (The type is Timeline; the function that makes one
// is named after the C call, as Estimate makes a Report.)
func EstimateTimeline(model *Model, hardware *Hardware, strategy *Strategy) (*Timeline, error) {
	var tl *Timeline
	err := readInputs("EstimateTimeline", model, hardware, strategy, func() error {
		var err error
		tl, err = estimateTimeline(raw.Llmmem_estimate_timeline, false, model.h, hardware.h, strategy.h)
		return err
	})
	return tl, err
}

// EstimateTimelineRuns is the job's timeline as PyTorch's CUDA caching allocator serves it
// (llmmem_estimate_timeline_runs, `llmmem timeline --allocator`): EstimateRuns's replay moment by
// moment, Replayed true. A point follows each moment of the allocation tape (the model built:
// "static"; each layer's forward and recomputation; the loss's forward: "forward", layer -1; the
// backward's end; the optimizer step; the generate loop's layers: "prefill", "decode") for every
// step replayed (Step: two training steps, up to 64 decode steps), with the highest bytes
// allocated since the point before (TotalBytes, by component; the memory outside the allocator and
// the workspaces as runtime_overhead) and ReservedBytes, what the device holds then. The highest
// ReservedBytes is EstimateRuns's ReservedBytes plus the memory outside (ReservedPeak gives it).
// A job the replay does not model returns a nil Timeline and an ErrUnsupported error.
func EstimateTimelineRuns(model *Model, hardware *Hardware, strategy *Strategy) (*Timeline, error) {
	var tl *Timeline
	err := readInputs("EstimateTimelineRuns", model, hardware, strategy, func() error {
		var err error
		tl, err = estimateTimeline(raw.Llmmem_estimate_timeline_runs, true, model.h, hardware.h, strategy.h)
		return err
	})
	return tl, err
}

type timelineFunc func(raw.TimelineHandle, raw.ModelHandle, raw.HardwareHandle, raw.StrategyHandle) raw.Enum_SS_llmmem_status

func estimateTimeline(run timelineFunc, replayed bool, m raw.ModelHandle, hw raw.HardwareHandle,
	s raw.StrategyHandle) (*Timeline, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := raw.Llmmem_bind_timeline_new()
	if h.Swigcptr() == 0 {
		return nil, lastError(raw.Llmmem_bind_last_factory_status())
	}
	track(1)
	defer func() {
		raw.DeleteTimelineHandle(h)
		track(-1)
	}()
	if err := lastError(run(h, m, hw, s)); err != nil {
		return nil, err
	}
	text := raw.Llmmem_bind_timeline_json(h)
	if text == "" {
		return nil, lastError(raw.Llmmem_bind_last_factory_status())
	}
	n := raw.Llmmem_timeline_count(h)
	tl := &Timeline{
		Points:    make([]TimelinePoint, 0, n),
		PeakIndex: int(raw.Llmmem_timeline_peak_index(h)),
		Stage:     int(raw.Llmmem_timeline_stage(h)),
		Replayed:  replayed,
		json:      text,
	}
	components := int(raw.Llmmem_component_count())
	for i := int64(0); i < n; i++ {
		p := TimelinePoint{
			Phase:      phaseName(raw.Llmmem_timeline_phase(h, i)),
			Layer:      raw.Llmmem_timeline_layer(h, i),
			Components: make([]Amount, 0, components),
			TotalBytes: raw.Llmmem_timeline_total_bytes(h, i),
		}
		if replayed {
			p.Step, p.ReservedBytes = raw.Llmmem_timeline_step(h, i), raw.Llmmem_timeline_reserved_bytes(h, i)
		}
		for c := 0; c < components; c++ {
			comp := raw.Enum_SS_llmmem_component(c)
			p.Components = append(p.Components, Amount{Name: raw.Llmmem_component_name(comp), Bytes: raw.Llmmem_timeline_bytes(h, i, comp)})
		}
		tl.Points = append(tl.Points, p)
	}
	return tl, nil
}

// phaseName is the library's name of a phase (its number for one it does not name).
func phaseName(phase raw.Enum_SS_llmmem_peak_phase) string {
	if name := raw.Llmmem_peak_phase_name(phase); name != "" {
		return name
	}
	return fmt.Sprint(int(phase))
}

// PhaseNames lists the moments of a step the library names, in its order ("static", "loss",
// "recompute", "forward", "backward", "optimizer"): the values of Report.PeakPhase and of
// TimelinePoint.Phase.
func PhaseNames() []string {
	var out []string
	for {
		name := raw.Llmmem_peak_phase_name(raw.Enum_SS_llmmem_peak_phase(len(out)))
		if name == "" {
			return out
		}
		out = append(out, name)
	}
}

// JSON is the library's JSON timeline, byte for byte as `llmmem timeline --json` prints it
// ("" for a nil or zero Timeline).
func (t *Timeline) JSON() string {
	if t == nil {
		return ""
	}
	return t.json
}

// Peak is the highest point (false for a nil or empty Timeline).
func (t *Timeline) Peak() (TimelinePoint, bool) {
	if t == nil || t.PeakIndex < 0 || t.PeakIndex >= len(t.Points) {
		return TimelinePoint{}, false
	}
	return t.Points[t.PeakIndex], true
}

// ReservedPeak is the index of the highest ReservedBytes (the first, on a tie); false for a
// Timeline that is not replayed, nil or empty.
func (t *Timeline) ReservedPeak() (int, bool) {
	if t == nil || !t.Replayed || len(t.Points) == 0 {
		return 0, false
	}
	peak := 0
	for i, p := range t.Points {
		if p.ReservedBytes > t.Points[peak].ReservedBytes {
			peak = i
		}
	}
	return peak, true
}

// Bytes gives one component's bytes at the moment ("activations", "gradients", ...).
func (p TimelinePoint) Bytes(component string) (uint64, bool) {
	for _, c := range p.Components {
		if c.Name == component {
			return c.Bytes, true
		}
	}
	return 0, false
}

// Label is the moment's short name: "fwd 3", "loss fwd", "loss bwd", "bwd 3", "opt", the others
// their phase's name ("loss_done", "backward_done", "optimizer_done"), as the Python binding's
// plot_timeline writes them.
func (p TimelinePoint) Label() string {
	if p.Layer >= 0 {
		short := p.Phase
		switch p.Phase {
		case "forward":
			short = "fwd"
		case "backward", "recompute":
			short = "bwd"
		}
		return fmt.Sprintf("%s %d", short, p.Layer)
	}
	switch p.Phase {
	case "forward":
		return "loss fwd"
	case "loss":
		return "loss bwd"
	case "optimizer":
		return "opt"
	}
	return p.Phase
}

// String is a table of the moments: the label, the total in bytes, GiB (2^30 bytes) and GB
// (10^9 bytes), the peak marked; a replayed one's the label, the step, the allocated and the
// reserved bytes (as `llmmem timeline --allocator` prints them).
func (t *Timeline) String() string {
	if t == nil {
		return "<nil timeline>"
	}
	var b strings.Builder
	if t.Replayed {
		fmt.Fprintf(&b, "%d moments as PyTorch's CUDA caching allocator serves them\n", len(t.Points))
		fmt.Fprintf(&b, "%-10s %5s %20s %20s\n", "moment", "step", "allocated", "reserved")
		for i, p := range t.Points {
			mark := ""
			if i == t.PeakIndex {
				mark = "  <- peak"
			}
			fmt.Fprintf(&b, "%-10s %5d %20d %20d%s\n", p.Label(), p.Step, p.TotalBytes, p.ReservedBytes, mark)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "stage %d, %d moments\n", t.Stage, len(t.Points))
	fmt.Fprintf(&b, "%-10s %20s %10s %10s\n", "moment", "bytes", "GiB", "GB")
	for i, p := range t.Points {
		mark := ""
		if i == t.PeakIndex {
			mark = "  <- peak"
		}
		fmt.Fprintf(&b, "%-10s %20d %10.2f %10.2f%s\n", p.Label(), p.TotalBytes, float64(p.TotalBytes)/(1<<30),
			float64(p.TotalBytes)/1e9, mark)
	}
	return b.String()
}
