package llmmem

// EstimateRuns: the job replayed through the model of PyTorch's CUDA caching allocator. The facts
// are those the C library's own test states (tests/test_tape.c, test_estimate_runs and
// test_replay_is_bounded): Llama-3.2-1B trained with transformers, 2 x 2048 tokens in pure bf16,
// is the H100 job t_llama1b_sdpa, whose reserved peak was measured in a fresh process at
// 21,361,590,272 bytes; on a 16 GiB card it runs out of memory after step 2, layer 15's forward,
// and expandable segments do not save it. A generate of 99,999 decode steps replays at most 64:
// ceil(99,999 / 64) = 1,563 tokens a replayed step.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const measuredReserved = 21361590272 // t_llama1b_sdpa on an H100, torch.cuda.max_memory_reserved()

// tapeJob is the measured job's inputs on gpu, with extra strategy settings.
func tapeJob(t *testing.T, gpu string, kv ...any) (*Model, *Hardware, *Strategy) {
	t.Helper()
	data := os.Getenv("LLMMEM_TEST_DATA")
	if data == "" {
		t.Skip("LLMMEM_TEST_DATA is not set (meson sets it to tests/data)")
	}
	m, err := NewModelFromHFConfig(filepath.Join(data, "gpu", "configs", "llama-3.2-1b.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	settings := append([]any{"framework", "hf_trainer", "mode", "training", "precision_recipe", "pure_bf16",
		"micro_batch_size", 2, "sequence_length", 2048}, kv...)
	return m, mustHardware(t, gpu), mustStrategy(t, settings...)
}

// smallCard is the job on an RTX 4090 given 16 GiB.
func smallCard(t *testing.T, kv ...any) (*Model, *Hardware, *Strategy) {
	t.Helper()
	m, hw, s := tapeJob(t, "rtx-4090", kv...)
	if err := hw.Set("memory_bytes", "16GiB"); err != nil {
		t.Fatal(err)
	}
	return m, hw, s
}

func mustRuns(t *testing.T, m *Model, hw *Hardware, s *Strategy) *Report {
	t.Helper()
	r, err := EstimateRuns(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEstimateRunsTheMeasuredJob(t *testing.T) {
	m, hw, s := tapeJob(t, "h100-sxm-80gb")
	r := mustRuns(t, m, hw, s)
	runs, replayed := r.Runs()
	if !replayed || !runs || !r.Fits || !r.Replayed() || r.NotReplayed() != "" {
		t.Fatalf("runs %v replayed %v fits %v not replayed %q", runs, replayed, r.Fits, r.NotReplayed())
	}
	if got, _ := r.ReservedBytes(); got != measuredReserved {
		t.Errorf("reserved peak %d, measured %d", got, measuredReserved)
	}
	allocated, _ := r.AllocatedBytes()
	free, _ := r.ReservedFreeBytes()
	low, _ := r.ReservedLowBytes()
	outside, _ := r.Bytes("runtime_overhead")
	// every live tensor of the estimate is an allocated block (rounded up, transients on top)
	if allocated < r.TotalBytes-outside || allocated > measuredReserved || free > measuredReserved || low > measuredReserved {
		t.Errorf("allocated %d, free %d, low %d against the estimate's %d and reserved %d", allocated, free, low, r.TotalBytes-outside, uint64(measuredReserved))
	}
	if measuredReserved+outside > r.DeviceTotalBytes {
		t.Errorf("reserved + outside %d past the device's total %d", measuredReserved+outside, r.DeviceTotalBytes)
	}
	if _, _, ok := r.OutOfMemory(); ok {
		t.Error("a job that runs has an out-of-memory request")
	}
	if _, asked := r.RunsExpandable(); asked {
		t.Error("a job that runs is asked about expandable segments")
	}
	if stride, ok := r.DecodeStride(); !ok || stride != 0 {
		t.Errorf("decode stride %d %v, want 0 (training: no generate loop)", stride, ok)
	}
	// the plain estimate: the same components, no replay
	plain, err := Estimate(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Replayed() || plain.NotReplayed() != "" || plain.DeviceTotalBytes != r.DeviceTotalBytes || plain.TotalBytes != r.TotalBytes {
		t.Errorf("plain estimate: replayed %v, %q, device total %d, total %d", plain.Replayed(), plain.NotReplayed(), plain.DeviceTotalBytes, plain.TotalBytes)
	}
	if _, replayed := plain.Runs(); replayed {
		t.Error("a plain estimate says it was replayed")
	}
	if _, ok := plain.ReservedBytes(); ok {
		t.Error("a plain estimate has a reserved peak")
	}
	if strings.Contains(plain.JSON(), `"allocator"`) || !strings.Contains(r.JSON(), `"allocator"`) {
		t.Error("the allocator object belongs to the replayed report's JSON only")
	}
}

func TestEstimateRunsOutOfMemoryOn16GiB(t *testing.T) {
	m, hw, s := smallCard(t)
	r := mustRuns(t, m, hw, s)
	if runs, replayed := r.Runs(); runs || !replayed || r.Fits {
		t.Fatalf("runs %v replayed %v fits %v", runs, replayed, r.Fits)
	}
	request, after, ok := r.OutOfMemory()
	if !ok || request == 0 || after != "step 2, layer 15's forward" {
		t.Errorf("out of memory: %d bytes after %q (%v)", request, after, ok)
	}
	if runs, asked := r.RunsExpandable(); runs || !asked {
		t.Errorf("with expandable segments: runs %v asked %v", runs, asked)
	}
	if r.DeviceTotalBytes != 16<<30 {
		t.Errorf("device total %d", r.DeviceTotalBytes)
	}
	reserved, _ := r.ReservedBytes()
	outside, _ := r.Bytes("runtime_overhead")
	if reserved+outside > r.DeviceTotalBytes {
		t.Errorf("the allocator holds %d beside %d outside, past the device's %d", reserved, outside, r.DeviceTotalBytes)
	}
	text := r.String()
	for _, want := range []string{"reserved peak", "device total", "runs: no, out of memory", "after step 2, layer 15's forward"} {
		if !strings.Contains(text, want) {
			t.Errorf("String() lacks %q:\n%s", want, text)
		}
	}
	// expandable segments on: it still runs out, and the question is not asked
	m, hw, s = smallCard(t, "expandable_segments", true)
	on := mustRuns(t, m, hw, s)
	if runs, _ := on.Runs(); runs {
		t.Error("it runs with expandable segments")
	}
	if _, asked := on.RunsExpandable(); asked {
		t.Error("asked about expandable segments with them on")
	}
	if lo, _ := on.ReservedLowBytes(); lo != mustReserved(t, on) {
		t.Error("expandable segments have no placement to choose, yet the placements differ")
	}
}

func mustReserved(t *testing.T, r *Report) uint64 {
	t.Helper()
	v, ok := r.ReservedBytes()
	if !ok {
		t.Fatal("not replayed")
	}
	return v
}

// The methods give the library's JSON "allocator" object.
func TestEstimateRunsMethodsAreTheJSON(t *testing.T) {
	m, hw, s := tapeJob(t, "rtx-4090")
	m16, hw16, s16 := smallCard(t)
	for name, r := range map[string]*Report{"runs": mustRuns(t, m, hw, s), "out of memory": mustRuns(t, m16, hw16, s16)} {
		var d struct {
			DeviceTotal uint64 `json:"device_total_bytes"`
			Fits        bool   `json:"fits"`
			Allocator   struct {
				Allocated, Reserved, Low, Free, Outside, Stride uint64
				Runs                                            bool
				Expandable                                      *bool `json:"runs_with_expandable_segments"`
				OOM                                             *struct {
					Request uint64 `json:"request"`
					After   string `json:"after"`
				} `json:"out_of_memory"`
			} `json:"allocator"`
		}
		raw := strings.NewReplacer(`"allocated_peak"`, `"Allocated"`, `"reserved_peak"`, `"Reserved"`, `"reserved_low"`, `"Low"`,
			`"free_at_reserved_peak"`, `"Free"`, `"outside"`, `"Outside"`, `"decode_stride"`, `"Stride"`).Replace(r.JSON())
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatal(err)
		}
		a := d.Allocator
		allocated, _ := r.AllocatedBytes()
		low, _ := r.ReservedLowBytes()
		free, _ := r.ReservedFreeBytes()
		stride, _ := r.DecodeStride()
		outside, _ := r.Bytes("runtime_overhead")
		runs, _ := r.Runs()
		if allocated != a.Allocated || mustReserved(t, r) != a.Reserved || low != a.Low || free != a.Free || stride != a.Stride ||
			outside != a.Outside || runs != a.Runs || r.Fits != d.Fits || d.Fits != a.Runs || r.DeviceTotalBytes != d.DeviceTotal {
			t.Errorf("%s: the methods differ from the JSON %s", name, r.JSON())
		}
		request, after, ok := r.OutOfMemory()
		expandable, asked := r.RunsExpandable()
		if ok != (a.OOM != nil) || (ok && (request != a.OOM.Request || after != a.OOM.After)) ||
			asked != (a.Expandable != nil) || (asked && expandable != *a.Expandable) {
			t.Errorf("%s: the out-of-memory request or expandable answer differs from the JSON", name)
		}
	}
}

func TestEstimateRunsNotModelledKeepsTheEstimate(t *testing.T) {
	m, hw, s := smallCard(t, "tensor_parallel", 2)
	r, err := EstimateRuns(m, hw, s)
	var e *Error
	if !errors.Is(err, ErrUnsupported) || !errors.As(err, &e) || !strings.Contains(e.Message, "several devices") {
		t.Fatalf("error %v", err)
	}
	if r == nil || r.Replayed() || r.NotReplayed() != e.Message {
		t.Fatalf("report %v, not replayed %q", r, r.NotReplayed())
	}
	plain, err := Estimate(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.JSON() != plain.JSON() || r.Fits != plain.Fits {
		t.Error("the report is not the estimate")
	}
	if !strings.Contains(r.String(), "allocator: not replayed: "+e.Message) {
		t.Errorf("String() does not say why:\n%s", r)
	}
	// a failing estimate is an error with no report
	if err := s.Set("tensor_parallel", 3); err != nil {
		t.Fatal(err)
	}
	if r, err := EstimateRuns(m, hw, s); r != nil || !errors.Is(err, ErrIncompatible) {
		t.Errorf("tensor_parallel 3 on 32 heads: %v, %v", r, err)
	}
	if _, err := EstimateRuns(nil, hw, s); err == nil || !strings.Contains(err.Error(), "EstimateRuns: model is nil") {
		t.Errorf("nil model: %v", err)
	}
	// a nil report answers: not replayed
	var none *Report
	if none.Replayed() || none.NotReplayed() != "" {
		t.Error("a nil report says it was replayed")
	}
	if _, ok := none.ReservedBytes(); ok {
		t.Error("a nil report has a reserved peak")
	}
}

func TestEstimateRunsLongGenerationStride(t *testing.T) {
	m, hw, s := tapeJob(t, "h100-sxm-80gb", "mode", "inference", "micro_batch_size", 1, "sequence_length", 16, "max_new_tokens", 100000)
	r := mustRuns(t, m, hw, s)
	if stride, _ := r.DecodeStride(); stride != 1563 { // ceil(99,999 / 64)
		t.Errorf("decode stride %d, want 1563", stride)
	}
	if runs, _ := r.Runs(); !runs {
		t.Error("a 16-token prompt does not run on an H100")
	}
	if err := s.Set("max_new_tokens", 65); err != nil { // 64 decode steps: every one
		t.Fatal(err)
	}
	if stride, _ := mustRuns(t, m, hw, s).DecodeStride(); stride != 1 {
		t.Errorf("decode stride %d, want 1", stride)
	}
	if err := m.Set("num_hidden_layers", 4097); err != nil {
		t.Fatal(err)
	}
	r, err := EstimateRuns(m, hw, s)
	var e *Error
	if !errors.As(err, &e) || e.Message != "the allocation tape runs 1 to 4096 decoder layers" || r == nil || r.Replayed() {
		t.Errorf("4097 layers: %v, %v", r, err)
	}
}

// measuredRecord is a job's record of the H100 runs (tests/data/gpu/h100-measured.jsonl).
func measuredRecord(t *testing.T, name string) map[string]any {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(os.Getenv("LLMMEM_TEST_DATA"), "gpu", "h100-measured.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["name"] == name {
			return rec
		}
	}
	t.Fatalf("no record %s", name)
	return nil
}

func mustTimelineRuns(t *testing.T, m *Model, hw *Hardware, s *Strategy) *Timeline {
	t.Helper()
	tl, err := EstimateTimelineRuns(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	if !tl.Replayed || len(tl.Points) == 0 {
		t.Fatalf("replayed %v, %d points", tl.Replayed, len(tl.Points))
	}
	return tl
}

func TestEstimateTimelineRunsReachesTheMeasuredReservedPeak(t *testing.T) {
	m, hw, s := tapeJob(t, "h100-sxm-80gb")
	tl := mustTimelineRuns(t, m, hw, s)
	r := mustRuns(t, m, hw, s)
	outside, _ := r.Bytes("runtime_overhead")
	reserved, _ := r.ReservedBytes()
	allocated, _ := r.AllocatedBytes()
	if got := measuredRecord(t, "t_llama1b_sdpa")["peak_reserved"]; got != float64(measuredReserved) {
		t.Fatalf("measured reserved %v, the record says %v", measuredReserved, got)
	}
	i, ok := tl.ReservedPeak()
	if !ok || tl.Points[i].ReservedBytes != measuredReserved+outside || reserved != measuredReserved {
		t.Errorf("highest reserved %d (point %d), want the measured %d + outside %d (report: %d)",
			tl.Points[i].ReservedBytes, i, uint64(measuredReserved), outside, reserved)
	}
	if peak, _ := tl.Peak(); peak.TotalBytes != allocated+outside {
		t.Errorf("highest allocated %d, want the report's %d + outside %d", peak.TotalBytes, allocated, outside)
	}
	// the caching allocator frees no segment (no empty_cache, no OOM retry): reserved only grows,
	// and every block handed out lies in a reserved segment
	for k, p := range tl.Points {
		if p.ReservedBytes < p.TotalBytes || (k > 0 && p.ReservedBytes < tl.Points[k-1].ReservedBytes) {
			t.Errorf("point %d: allocated %d, reserved %d", k, p.TotalBytes, p.ReservedBytes)
		}
	}
	// two training steps, each every layer's forward in order
	layers, _ := m.Get("num_hidden_layers")
	for step := uint64(0); step < 2; step++ {
		next := int64(0)
		for _, p := range tl.Points {
			if p.Step == step && p.Phase == "forward" && p.Layer >= 0 {
				if p.Layer != next {
					t.Fatalf("step %d: layer %d's forward after %d", step, p.Layer, next-1)
				}
				next++
			}
		}
		if next != layers.(int64) {
			t.Errorf("step %d: %d forwards, want %d", step, next, layers)
		}
	}
	if first, last := tl.Points[0], tl.Points[len(tl.Points)-1]; first.Phase != "static" || first.Step != 0 ||
		last.Phase != "optimizer" || last.Step != 1 {
		t.Errorf("first %+v, last %+v", first, last)
	}
	if !strings.Contains(tl.String(), "allocated             reserved") {
		t.Errorf("the table has no reserved column:\n%s", tl.String())
	}
	// the estimate's timeline is not replayed
	plain, err := EstimateTimeline(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.ReservedPeak(); ok || plain.Replayed || plain.Points[0].ReservedBytes != 0 ||
		strings.Contains(plain.JSON(), `"reserved"`) || strings.Contains(plain.String(), "reserved") {
		t.Error("a plain timeline has reserved bytes")
	}
}

func TestEstimateTimelineRunsStopsWhereItRunsOutOfMemory(t *testing.T) {
	m, hw, s := smallCard(t) // out of memory in step 2, layer 15's forward
	tl := mustTimelineRuns(t, m, hw, s)
	r, err := EstimateRuns(m, hw, s)
	if err != nil {
		t.Fatal(err)
	}
	outside, _ := r.Bytes("runtime_overhead")
	reserved, _ := r.ReservedBytes()
	last := tl.Points[len(tl.Points)-1]
	if last.Step != 1 || last.Phase != "forward" || last.Layer != 15 {
		t.Errorf("last point %+v, want step 1 (the second), layer 15's forward", last)
	}
	if i, _ := tl.ReservedPeak(); tl.Points[i].ReservedBytes != reserved+outside || reserved+outside > r.DeviceTotalBytes {
		t.Errorf("highest reserved %d, report %d + %d, device %d", tl.Points[i].ReservedBytes, reserved, outside, r.DeviceTotalBytes)
	}
}

func TestEstimateTimelineRunsNotModelled(t *testing.T) {
	m, hw, s := tapeJob(t, "h100-sxm-80gb", "framework", "megatron")
	tl, err := EstimateTimelineRuns(m, hw, s)
	var e *Error
	if tl != nil || !errors.Is(err, ErrUnsupported) || !errors.As(err, &e) ||
		e.Message != "the allocation tape does not run framework megatron" {
		t.Errorf("timeline %v, error %v", tl, err)
	}
	if _, err := EstimateTimelineRuns(m, nil, s); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil hardware: %v", err)
	}
}
