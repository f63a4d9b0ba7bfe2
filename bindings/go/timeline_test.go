package llmmem

import (
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// smallTraining is GPT-2 (12 layers) training on an H100.
func smallTraining(t *testing.T) (*Model, *Hardware, *Strategy) {
	return mustModel(t, "gpt2"), mustHardware(t, "h100-sxm-80gb"),
		mustStrategy(t, "mode", "training", "micro_batch_size", 2, "sequence_length", 512)
}

func TestTimelineOfASmallTrainingJob(t *testing.T) {
	m, hw, s := smallTraining(t)
	r, err := Estimate(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := EstimateTimeline(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Get("num_hidden_layers")
	layers := int(v.(int64))
	if len(tl.Points) != 2*layers+6 {
		t.Fatalf("%d points for %d layers", len(tl.Points), layers)
	}
	// each layer's forward, the loss's forward, the loss computed and its backward, each layer's
	// backward from the last, backward's end, the optimizer step and its end
	for i, p := range tl.Points {
		var phase string
		var layer int64
		switch {
		case i < layers:
			phase, layer = "forward", int64(i)
		case i == layers:
			phase, layer = "forward", -1
		case i == layers+1:
			phase, layer = "loss_done", -1
		case i == layers+2:
			phase, layer = "loss", -1
		case i < 2*layers+3:
			phase, layer = "backward", int64(2*layers+2-i)
		case i == 2*layers+3:
			phase, layer = "backward_done", -1
		case i == 2*layers+4:
			phase, layer = "optimizer", -1
		default:
			phase, layer = "optimizer_done", -1
		}
		if (p.Phase != phase && !(phase == "backward" && p.Phase == "recompute")) || p.Layer != layer {
			t.Errorf("point %d: %s %d, want %s %d", i, p.Phase, p.Layer, phase, layer)
		}
		var sum uint64
		for _, c := range p.Components {
			sum += c.Bytes
		}
		if sum != p.TotalBytes {
			t.Errorf("point %d: components add up to %d, total %d", i, sum, p.TotalBytes)
		}
	}
	peak, ok := tl.Peak()
	if !ok || peak.TotalBytes != r.TotalBytes {
		t.Fatalf("peak %+v, report %d bytes", peak, r.TotalBytes)
	}
	found := false // the report's moment is one of the highest points
	for _, p := range tl.Points {
		found = found || (p.TotalBytes == r.TotalBytes && p.Phase == r.PeakPhase && p.Layer == r.PeakLayer)
	}
	if !found {
		t.Errorf("no highest point at the report's moment (%s, layer %d)", r.PeakPhase, r.PeakLayer)
	}
	for i, p := range tl.Points {
		if p.TotalBytes > peak.TotalBytes || (i < tl.PeakIndex && p.TotalBytes == peak.TotalBytes) {
			t.Errorf("point %d (%d bytes) is not below the peak's (index %d)", i, p.TotalBytes, tl.PeakIndex)
		}
	}
	for _, c := range r.Components {
		if b, _ := peak.Bytes(c.Name); b != c.Bytes {
			t.Errorf("peak %s %d, report %d", c.Name, b, c.Bytes)
		}
	}
	if tl.Stage != r.MostLoadedStage {
		t.Errorf("stage %d, report's most loaded %d", tl.Stage, r.MostLoadedStage)
	}
	// the JSON is the library's, with the same points
	var d struct {
		Stage     int `json:"stage"`
		PeakIndex int `json:"peak_index"`
		Points    []struct {
			Phase string            `json:"phase"`
			Layer int64             `json:"layer"`
			Total uint64            `json:"total"`
			Bytes map[string]uint64 `json:"bytes"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(tl.JSON()), &d); err != nil {
		t.Fatal(err)
	}
	if d.Stage != tl.Stage || d.PeakIndex != tl.PeakIndex || len(d.Points) != len(tl.Points) {
		t.Fatalf("JSON stage %d, peak %d, %d points", d.Stage, d.PeakIndex, len(d.Points))
	}
	for i, p := range tl.Points {
		if d.Points[i].Phase != p.Phase || d.Points[i].Layer != p.Layer || d.Points[i].Total != p.TotalBytes {
			t.Errorf("JSON point %d differs", i)
		}
		for _, c := range p.Components {
			if d.Points[i].Bytes[c.Name] != c.Bytes {
				t.Errorf("JSON point %d: %s differs", i, c.Name)
			}
		}
	}
	phases := strings.Join(PhaseNames(), " ")
	for _, p := range tl.Points {
		if !strings.Contains(" "+phases+" ", " "+p.Phase+" ") {
			t.Errorf("phase %q is not in PhaseNames() %q", p.Phase, phases)
		}
	}
	text := tl.String()
	if !strings.Contains(text, "<- peak") || !strings.Contains(text, "loss bwd") || !strings.Contains(text, "GiB") {
		t.Errorf("String() = %s", text)
	}
}

func TestTimelineOfInferenceIsOneMoment(t *testing.T) {
	m, hw := mustModel(t, "gpt2"), mustHardware(t, "h100-sxm-80gb")
	s := mustStrategy(t)
	r, err := Estimate(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := EstimateTimeline(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Points) != 1 || tl.PeakIndex != 0 || tl.Points[0].Phase != "static" || r.PeakPhase != "static" ||
		tl.Points[0].Layer != -1 || r.PeakLayer != -1 || tl.Points[0].TotalBytes != r.TotalBytes {
		t.Fatalf("inference timeline %+v, report %d", tl.Points, r.TotalBytes)
	}
}

func TestTimelineErrorsAsEstimate(t *testing.T) {
	m, hw, s := smallTraining(t)
	if err := m.Set("num_key_value_heads", 5); err != nil {
		t.Fatal(err)
	}
	_, want := Estimate(m, hw, s)
	_, got := EstimateTimeline(m, hw, s)
	var a, b *Error
	if !errors.As(want, &a) || !errors.As(got, &b) || *a != *b {
		t.Fatalf("EstimateTimeline: %v, Estimate: %v", got, want)
	}
	wantError(t, "EstimateTimeline(nil, hw, s)", "EstimateTimeline: model is nil",
		func() error { _, err := EstimateTimeline(nil, hw, s); return err })
	wantError(t, "EstimateTimeline(m, nil, s)", "EstimateTimeline: hardware is nil",
		func() error { _, err := EstimateTimeline(m, nil, s); return err })
	wantError(t, "EstimateTimeline(m, hw, nil)", "EstimateTimeline: strategy is nil",
		func() error { _, err := EstimateTimeline(m, hw, nil); return err })
	closed, _ := NewStrategy()
	closed.Close()
	wantError(t, "EstimateTimeline(closed strategy)", "strategy is closed",
		func() error { _, err := EstimateTimeline(m, hw, closed); return err })
	var nilTimeline *Timeline
	if nilTimeline.JSON() != "" || nilTimeline.String() != "<nil timeline>" {
		t.Error("a nil Timeline's JSON or String")
	}
	if _, ok := nilTimeline.Peak(); ok {
		t.Error("a nil Timeline has a peak")
	}
	if _, ok := (&Timeline{}).Peak(); ok {
		t.Error("an empty Timeline has a peak")
	}
}

func TestTimelineFreesItsHandle(t *testing.T) {
	m, hw, s := smallTraining(t)
	bad := mustModel(t, "gpt2")
	_ = bad.Set("num_key_value_heads", 5)
	before := atomic.LoadInt64(&liveHandles)
	for i := 0; i < 20; i++ {
		if _, err := EstimateTimeline(m, hw, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := EstimateTimeline(bad, hw, s); err == nil {
		t.Fatal("want an error")
	}
	if after := atomic.LoadInt64(&liveHandles); after != before {
		t.Fatalf("%d C handles not freed", after-before)
	}
}
