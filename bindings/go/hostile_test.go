package llmmem

// Hostile input (issue 14): no argument or receiver makes the package panic, and a Set or a
// Close is not starved by goroutines estimating in a loop.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"llmmem/internal/raw"
)

func mustCheckpoint(t *testing.T) *Checkpoint {
	t.Helper()
	header := `{"model.norm.weight": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}`
	data := make([]byte, 8, 8+len(header))
	data[0] = byte(len(header))
	ck, err := ParseSafetensorsHeader(append(data, header...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ck.Close() })
	return ck
}

func mustServing(t *testing.T) *Serving {
	t.Helper()
	sv, err := Serve(mustModel(t, "llama-2-7b"), mustHardware(t, "h100-sxm-80gb"), mustStrategy(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close() })
	return sv
}

// wantError runs f, turning a panic into a test failure, and wants an *Error of status
// ErrInvalidArgument whose message contains want.
func wantError(t *testing.T, name string, want string, f func() error) {
	t.Helper()
	var err error
	panicked := func() (p any) {
		defer func() { p = recover() }()
		err = f()
		return nil
	}()
	if panicked != nil {
		t.Errorf("%s panicked: %v", name, panicked)
		return
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s = %v; want an *Error (ErrInvalidArgument) containing %q", name, err, want)
	}
}

// noPanic runs f and fails the test if it panics.
func noPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s panicked: %v", name, p)
		}
	}()
	f()
}

func TestNilArgumentsReturnErrorsNamingThem(t *testing.T) {
	m, hw, s := mustModel(t, "llama-2-7b"), mustHardware(t, "h100-sxm-80gb"), mustStrategy(t)
	ck := mustCheckpoint(t)
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"UseCheckpoint(nil)", "Model.UseCheckpoint: checkpoint is nil", func() error { return m.UseCheckpoint(nil) }},
		{"Verify(nil)", "Checkpoint.Verify: model is nil", func() error { return ck.Verify(nil) }},
		{"Estimate(nil, hw, s)", "Estimate: model is nil", func() error { _, err := Estimate(nil, hw, s); return err }},
		{"Estimate(m, nil, s)", "Estimate: hardware is nil", func() error { _, err := Estimate(m, nil, s); return err }},
		{"Estimate(m, hw, nil)", "Estimate: strategy is nil", func() error { _, err := Estimate(m, hw, nil); return err }},
		{"EstimateRuns(m, nil, s)", "EstimateRuns: hardware is nil", func() error { _, err := EstimateRuns(m, nil, s); return err }},
		{"EstimateRuns(m, hw, nil)", "EstimateRuns: strategy is nil", func() error { _, err := EstimateRuns(m, hw, nil); return err }},
		{"Serve(nil, hw, s)", "Serve: model is nil", func() error { _, err := Serve(nil, hw, s); return err }},
		{"Serve(m, hw, nil)", "Serve: strategy is nil", func() error { _, err := Serve(m, hw, nil); return err }},
		{"SolveMaxMicroBatch", "SolveMaxMicroBatch: hardware is nil", func() error { _, err := SolveMaxMicroBatch(m, nil, s); return err }},
		{"SolveMaxSequenceLength", "SolveMaxSequenceLength: strategy is nil", func() error { _, err := SolveMaxSequenceLength(m, hw, nil); return err }},
		{"SolveWeightFormat", "SolveWeightFormat: model is nil", func() error { _, err := SolveWeightFormat(nil, hw, s); return err }},
		{"SolveMinDevices", "SolveMinDevices: model is nil", func() error { _, err := SolveMinDevices(nil, hw, s, 8); return err }},
		{"Plan(nil base)", "Plan: base is nil", func() error { _, _, err := Plan(m, hw, nil, 8); return err }},
		{"Plan(nil model)", "Plan: model is nil", func() error { _, _, err := Plan(nil, hw, s, 8); return err }},
		{"PlanJSON(nil base)", "PlanJSON: base is nil", func() error { _, err := PlanJSON(m, hw, nil, 8, 0); return err }},
		{"PlanJSON(nil hardware)", "PlanJSON: hardware is nil", func() error { _, err := PlanJSON(m, nil, s, 8, 0); return err }},
		{"KVBytesPerToken(nil, s)", "KVBytesPerToken: model is nil", func() error { _, err := KVBytesPerToken(nil, s); return err }},
		{"KVBytesPerToken(m, nil)", "KVBytesPerToken: strategy is nil", func() error { _, err := KVBytesPerToken(m, nil); return err }},
		{"KVCacheBytes(nil, s)", "KVCacheBytes: model is nil", func() error { _, err := KVCacheBytes(nil, s, 1, 1); return err }},
		{"KVCacheBytes(m, nil)", "KVCacheBytes: strategy is nil", func() error { _, err := KVCacheBytes(m, nil, 1, 1); return err }},
	}
	for _, c := range cases {
		wantError(t, c.name, c.want, c.f)
	}
}

func TestNilReceiversReturnErrorsOrZeroValues(t *testing.T) {
	var m *Model
	var hw *Hardware
	var s *Strategy
	var ck *Checkpoint
	var sv *Serving
	good := mustModel(t, "gpt2")
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"Model.Set", "Model.Set: model is nil", func() error { return m.Set("hidden_size", 64) }},
		{"Model.Get", "Model.Get: model is nil", func() error { _, err := m.Get("hidden_size"); return err }},
		{"Model.Parameters", "Model.Parameters: model is nil", func() error { _, err := m.Parameters(); return err }},
		{"Model.TotalParameters", "Model.TotalParameters: model is nil", func() error { _, err := m.TotalParameters(); return err }},
		{"Model.ActiveParameters", "Model.ActiveParameters: model is nil", func() error { _, err := m.ActiveParameters(); return err }},
		{"Model.UseCheckpoint", "Model.UseCheckpoint: model is nil", func() error { return m.UseCheckpoint(mustCheckpoint(t)) }},
		{"Model.Clone", "Model.Clone: model is nil", func() error { _, err := m.Clone(); return err }},
		{"Model.Close", "Model.Close: model is nil", m.Close},
		{"Hardware.Set", "Hardware.Set: hardware is nil", func() error { return hw.Set("devices_per_node", 8) }},
		{"Hardware.Get", "Hardware.Get: hardware is nil", func() error { _, err := hw.Get("memory_bytes"); return err }},
		{"Hardware.Clone", "Hardware.Clone: hardware is nil", func() error { _, err := hw.Clone(); return err }},
		{"Hardware.Close", "Hardware.Close: hardware is nil", hw.Close},
		{"Strategy.Set", "Strategy.Set: strategy is nil", func() error { return s.Set("mode", "training") }},
		{"Strategy.Get", "Strategy.Get: strategy is nil", func() error { _, err := s.Get("mode"); return err }},
		{"Strategy.Clone", "Strategy.Clone: strategy is nil", func() error { _, err := s.Clone(); return err }},
		{"Strategy.Close", "Strategy.Close: strategy is nil", s.Close},
		{"Checkpoint.Tensors", "Checkpoint.Tensors: checkpoint is nil", func() error { _, err := ck.Tensors(); return err }},
		{"Checkpoint.Model", "Checkpoint.Model: checkpoint is nil", func() error { _, err := ck.Model(); return err }},
		{"Checkpoint.Verify", "Checkpoint.Verify: checkpoint is nil", func() error { return ck.Verify(good) }},
		{"Checkpoint.Close", "Checkpoint.Close: checkpoint is nil", ck.Close},
		{"Serving.RequestBlocks", "Serving.RequestBlocks: serving result is nil", func() error { _, _, err := sv.RequestBlocks(16); return err }},
		{"Serving.FitsRequest", "Serving.FitsRequest: serving result is nil", func() error { _, err := sv.FitsRequest(16); return err }},
		{"Serving.MaxConcurrency", "Serving.MaxConcurrency: serving result is nil", func() error { _, err := sv.MaxConcurrency(16); return err }},
		{"Serving.LongestRequest", "Serving.LongestRequest: serving result is nil", func() error { _, err := sv.LongestRequest(); return err }},
		{"Serving.MaxBatch", "Serving.MaxBatch: serving result is nil", func() error { _, err := sv.MaxBatch(16); return err }},
		{"Serving.Close", "Serving.Close: serving result is nil", sv.Close},
	}
	for _, c := range cases {
		wantError(t, c.name, c.want, c.f)
	}
	// The methods without an error result give their zero value.
	var r *Report
	var e *Error
	noPanic(t, "zero-value results", func() {
		if m.Name() != "" || hw.Name() != "" || ck.TensorCount() != 0 || ck.TotalBytes() != 0 {
			t.Error("a nil receiver gave a non-zero value")
		}
		if r.JSON() != "" || r.String() == "" || sv.JSON() != "" || sv.String() == "" {
			t.Error("a nil Report or Serving gave text")
		}
		if _, ok := r.Bytes("weights"); ok {
			t.Error("a nil Report has weights")
		}
		if _, ok := sv.Value("num_blocks"); ok {
			t.Error("a nil Serving has blocks")
		}
		if e.Error() == "" || e.Unwrap() != nil {
			t.Error("a nil *Error")
		}
		CloseLayouts([]Layout{{}, {Strategy: nil}})
	})
}

// A zero value (not made by a New or Open function) is an error, not a NULL handle given to
// C; closing it does not count a handle as freed.
func TestZeroValuesReturnErrors(t *testing.T) {
	before := atomic.LoadInt64(&liveHandles)
	hw, s := mustHardware(t, "h100-sxm-80gb"), mustStrategy(t)
	m := mustModel(t, "llama-2-7b")
	const want = "was not made by this package"
	wantError(t, "Model{}.Set", want, func() error { return (&Model{}).Set("hidden_size", 64) })
	wantError(t, "Hardware{}.Get", want, func() error { _, err := (&Hardware{}).Get("memory_bytes"); return err })
	wantError(t, "Strategy{}.Clone", want, func() error { _, err := (&Strategy{}).Clone(); return err })
	wantError(t, "Estimate(Model{})", want, func() error { _, err := Estimate(&Model{}, hw, s); return err })
	wantError(t, "EstimateRuns(Model{})", want, func() error { _, err := EstimateRuns(&Model{}, hw, s); return err })
	wantError(t, "UseCheckpoint(Checkpoint{})", want, func() error { return m.UseCheckpoint(&Checkpoint{}) })
	wantError(t, "Checkpoint{}.Tensors", want, func() error { _, err := (&Checkpoint{}).Tensors(); return err })
	wantError(t, "Serving{}.MaxBatch", want, func() error { _, err := (&Serving{}).MaxBatch(16); return err })
	noPanic(t, "closing zero values", func() {
		for _, c := range []interface{ Close() error }{&Model{}, &Hardware{}, &Strategy{}, &Checkpoint{}, &Serving{}} {
			if err := c.Close(); err != nil {
				t.Errorf("%T.Close() = %v", c, err)
			}
		}
	})
	if after := atomic.LoadInt64(&liveHandles); after != before+3 {
		t.Fatalf("live handles %d, want %d (closing a zero value freed nothing)", after, before+3)
	}
}

func TestClosedArgumentsReturnErrors(t *testing.T) {
	m, hw, s := mustModel(t, "llama-2-7b"), mustHardware(t, "h100-sxm-80gb"), mustStrategy(t)
	ck := mustCheckpoint(t)
	ck.Close()
	wantError(t, "UseCheckpoint(closed)", "checkpoint is closed", func() error { return m.UseCheckpoint(ck) })
	wantError(t, "closed.Verify", "checkpoint is closed", func() error { return ck.Verify(m) })
	closedModel, _ := NewModelFromPreset("gpt2")
	closedModel.Close()
	wantError(t, "Verify(closed model)", "model is closed", func() error { return mustCheckpoint(t).Verify(closedModel) })
	closedStrategy, _ := NewStrategy()
	closedStrategy.Close()
	wantError(t, "Estimate(closed strategy)", "strategy is closed", func() error { _, err := Estimate(m, hw, closedStrategy); return err })
	wantError(t, "EstimateRuns(closed strategy)", "strategy is closed", func() error { _, err := EstimateRuns(m, hw, closedStrategy); return err })
	wantError(t, "KVBytesPerToken(closed strategy)", "strategy is closed", func() error { _, err := KVBytesPerToken(m, closedStrategy); return err })
	sv := mustServing(t)
	sv.Close()
	wantError(t, "closed Serving.MaxConcurrency", "serving result is closed", func() error { _, err := sv.MaxConcurrency(16); return err })
	_ = s
}

// Verify and UseCheckpoint lock the model before the checkpoint. With Verify taking the
// checkpoint first, a Verify (holding the checkpoint, waiting for the model), a
// UseCheckpoint (holding the model, waiting for the checkpoint) and a Close of the
// checkpoint (waiting for Verify, and making new readers of the checkpoint wait behind it:
// sync.RWMutex prefers writers) waited on one another forever. The test holds the model's
// lock as UseCheckpoint does between its two steps, then takes the checkpoint's read lock as
// its second step does.
func TestVerifyUseCheckpointAndCloseDoNotDeadlock(t *testing.T) {
	m := mustModel(t, "llama-2-7b")
	ck := mustCheckpoint(t)
	m.mu.Lock() // UseCheckpoint, step 1: the model's write lock
	locked := true
	defer func() {
		if locked {
			m.mu.Unlock()
		}
	}()
	verified := make(chan error, 1)
	go func() { verified <- ck.Verify(m) }()
	time.Sleep(50 * time.Millisecond) // Verify waits for the model
	closed := make(chan struct{})
	go func() { ck.Close(); close(closed) }()
	time.Sleep(50 * time.Millisecond)
	read := make(chan struct{})
	go func() { // UseCheckpoint, step 2: the checkpoint's read lock
		ck.mu.RLock()
		ck.mu.RUnlock()
		close(read)
	}()
	select {
	case <-read:
	case <-time.After(time.Minute): // a hang guard: the read takes microseconds
		m.mu.Unlock() // lets Verify through, which unblocks the others
		locked = false
		<-read
		t.Fatal("Verify, UseCheckpoint and Checkpoint.Close deadlocked (Verify locked the checkpoint before the model)")
	}
	m.mu.Unlock()
	locked = false
	<-closed
	if err := <-verified; !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "checkpoint is closed") {
		t.Fatalf("Verify after Close: %v", err)
	}
}

// Set and Close finish while goroutines estimate from the same object in a tight loop. Go's
// sync.RWMutex already blocks new readers once a writer waits ("a blocked Lock call excludes
// new readers from acquiring the lock", the RWMutex documentation, sync/rwmutex.go), so this
// passed before issue 14 too: it guards the property against a change of lock.
func TestSetAndCloseAreNotStarvedByEstimatingGoroutines(t *testing.T) {
	m, hw := mustModel(t, "llama-2-7b"), mustHardware(t, "h100-sxm-80gb")
	s := mustStrategy(t, "mode", "training")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var estimates int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := Estimate(m, hw, s); err != nil {
					return // closed
				}
				atomic.AddInt64(&estimates, 1)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for atomic.LoadInt64(&estimates) == 0 {
		time.Sleep(time.Millisecond)
	}
	within := func(name string, f func() error) {
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- f() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			t.Logf("%s took %v beside the estimating goroutines", name, time.Since(start))
		case <-time.After(time.Minute): // a hang guard: the call takes microseconds
			t.Fatalf("%s waited over a minute for goroutines estimating in a loop", name)
		}
	}
	for n := 1; n <= 3; n++ {
		within(fmt.Sprintf("Set(micro_batch_size, %d)", n), func() error { return s.Set("micro_batch_size", n) })
	}
	within("Hardware.Close", hw.Close)
}

// A whole number beyond int64 (a uint64 above MaxInt64, a float such as 1e300) is beyond
// every integer key's bounds: ErrOutOfRange naming the key, the value and the bounds, as the
// library's message does (it was ErrInvalidArgument, "... is not a whole number").
func TestSettingsBeyondInt64AreOutOfRange(t *testing.T) {
	s := mustStrategy(t)
	lo, hi := []int64{0}, []int64{0}
	if raw.Llmmem_key_bounds(lo, hi, raw.LLMMEM_KEY_MICRO_BATCH_SIZE) != raw.LLMMEM_OK {
		t.Fatal("no bounds for micro_batch_size")
	}
	for _, c := range []struct {
		value any
		text  string
	}{
		{uint64(1 << 63), "9223372036854775808"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{uint(math.MaxUint64), "18446744073709551615"},
		{1e300, "1e+300"},
		{-1e300, "-1e+300"},
		{float32(-1e30), "-1.0000000150474662e+30"},
	} {
		err := s.Set("micro_batch_size", c.value)
		want := fmt.Sprintf("micro_batch_size (%s) is out of range [%d, %d]", c.text, lo[0], hi[0])
		var e *Error
		if !errors.As(err, &e) || e.Status != ErrOutOfRange || e.Message != want {
			t.Errorf("Set(micro_batch_size, %v) = %v; want ErrOutOfRange %q", c.value, err, want)
		}
	}
	hw := mustHardware(t, "h100-sxm-80gb")
	if err := hw.Set("allocator_reserve_fraction", uint64(1<<63)); !errors.Is(err, ErrOutOfRange) ||
		!strings.Contains(err.Error(), "allocator_reserve_fraction (9.22337e+18) is out of range") {
		t.Errorf("a uint64 for a real key: %v", err)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := s.Set("micro_batch_size", f); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "not a whole number") {
			t.Errorf("Set(micro_batch_size, %v) = %v; want the library's ErrInvalidArgument", f, err)
		}
		if err := hw.Set("allocator_reserve_fraction", f); !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("Set(allocator_reserve_fraction, %v) = %v; want the library's ErrOutOfRange", f, err)
		}
	}
}

// Go strings are bytes: text that is not UTF-8, NUL and huge strings reach the library (or
// are refused before it) as errors, never a panic.
func TestOddStringsAreErrors(t *testing.T) {
	s := mustStrategy(t)
	huge := strings.Repeat("x", 10_000_000)
	cases := []struct {
		name   string
		status Status
		f      func() error
	}{
		{"Set(mode, \\xff)", ErrNotFound, func() error { return s.Set("mode", "\xff\xfe") }},
		{"Set(\\xff, 1)", ErrUnknownKey, func() error { return s.Set("\xff", 1) }},
		{"Get(\\xff)", ErrUnknownKey, func() error { _, err := s.Get("\xff"); return err }},
		{"LookupKey(huge)", ErrUnknownKey, func() error { _, err := LookupKey(huge); return err }},
		{"Set(mode, huge)", ErrNotFound, func() error { return s.Set("mode", huge) }},
		{"NewModelFromPreset(\\xff)", ErrNotFound, func() error { _, err := NewModelFromPreset("\xff"); return err }},
		{"NewHardwareFromPreset(huge)", ErrNotFound, func() error { _, err := NewHardwareFromPreset(huge); return err }},
		{"NewModelFromHFConfig(\\xff)", ErrIO, func() error { _, err := NewModelFromHFConfig(t.TempDir() + "/\xff.json"); return err }},
		{"OpenGGUF(NUL)", ErrInvalidArgument, func() error { _, err := OpenGGUF("a\x00b"); return err }},
		{"OpenSafetensors(NUL)", ErrInvalidArgument, func() error { _, err := OpenSafetensors("a\x00b"); return err }},
		{"Set(lora_targets, NUL)", ErrInvalidArgument, func() error { return s.Set("lora_targets", []string{"q", "v\x00"}) }},
		{"Set(nil value)", ErrInvalidArgument, func() error { return s.Set("mode", nil) }},
		{"Set(*int)", ErrInvalidArgument, func() error { n := 4; return s.Set("micro_batch_size", &n) }},
		{"NewModelFromHFConfigText(\\xff)", ErrParse, func() error { _, err := NewModelFromHFConfigText("\xff"); return err }},
		{"ParseSafetensorsHeader(nil)", ErrParse, func() error { _, err := ParseSafetensorsHeader(nil); return err }},
	}
	for _, c := range cases {
		var err error
		noPanic(t, c.name, func() { err = c.f() })
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.status) || len(e.Message) > 400 {
			t.Errorf("%s = %.200v; want an *Error of status %v with a short message", c.name, err, c.status)
		}
	}
}
