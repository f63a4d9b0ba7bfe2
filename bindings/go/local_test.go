package llmmem

// Local inference (llama.cpp, ollama): LocalEstimate, LocalSolve, the Local result, and the
// list key tensor_split. Every number is compared with one derived here from the model's public
// architecture, with the C library's own JSON (`llmmem serve --engine llama.cpp --json`, `llmmem
// fit --engine ...`, run at test time), or with another estimate, never with a stored one.

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

func oneGPU(t *testing.T, name string) *Hardware {
	t.Helper()
	hw := mustHardware(t, name)
	if err := hw.Set("devices_per_node", 1); err != nil {
		t.Fatal(err)
	}
	return hw
}

func mustLocal(t *testing.T, m *Model, hw *Hardware, s *Strategy, ck *Checkpoint) *Local {
	t.Helper()
	l, err := LocalEstimate(m, hw, s, ck)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func mustValue(t *testing.T, l *Local, name string) uint64 {
	t.Helper()
	v, ok := l.Value(name)
	if !ok {
		t.Fatalf("no value %q", name)
	}
	return v
}

// runLocalCLI runs `llmmem COMMAND --engine llama.cpp ARGS...`: stdout, stderr, exit status.
func runLocalCLI(t *testing.T, command string, args ...string) (string, string, int) {
	t.Helper()
	cli := os.Getenv("LLMMEM_CLI")
	if cli == "" {
		t.Skip("LLMMEM_CLI is not set (meson test sets it)")
	}
	cmd := exec.Command(cli, append([]string{command, "--engine", "llama.cpp"}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.String(), stderr.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

func TestLocalKVBytesDerivedByHand(t *testing.T) {
	m := mustModel(t, "llama-3.1-8b")
	// the public architecture of Llama 3.1 8B (config.json): 32 layers, 8 KV heads of 128
	for key, want := range map[string]int64{"num_hidden_layers": 32, "num_key_value_heads": 8} {
		if v, _ := m.Get(key); v != want {
			t.Fatalf("%s = %v, want %d", key, v, want)
		}
	}
	hidden, _ := m.Get("hidden_size")
	heads, _ := m.Get("num_attention_heads")
	if hidden.(int64)/heads.(int64) != 128 {
		t.Fatalf("head_dim = %d/%d, want 128", hidden, heads)
	}
	const layers, kvHeads, headDim, cells = 32, 8, 128, 32768
	const row = kvHeads * headDim // 1024 elements of K (and of V) per cell and layer
	const kBytes = row / 32 * 34  // q8_0: 34 bytes per block of 32
	const vBytes = row * 2        // f16
	const want = uint64((kBytes + vBytes) * cells * layers)
	if want != 3136*32768*32 {
		t.Fatal(want)
	}
	l := mustLocal(t, m, oneGPU(t, "h100-sxm-80gb"), mustStrategy(t, "n_ctx", cells, "cache_type_k", "q8_0"), nil)
	if got := mustValue(t, l, "kv_bytes"); got != want {
		t.Fatalf("kv_bytes = %d, want %d", got, want)
	}
	if len(l.Devices) != 2 {
		t.Fatalf("devices %+v", l.Devices)
	}
	gpu, host := l.Devices[0], l.Devices[1]
	if kv, _ := gpu.Bytes("kv"); kv != want || gpu.Host || gpu.Layers != 32 {
		t.Fatalf("GPU %+v", gpu)
	}
	if kv, _ := host.Bytes("kv"); kv != 0 || !host.Host || host.Name != "CPU" {
		t.Fatalf("host %+v", host)
	}
	if d, ok := l.Device("CUDA0"); !ok || !reflect.DeepEqual(d, gpu) {
		t.Fatalf("Device(CUDA0) = %+v, %v", d, ok)
	}
	if l.Engine != "llama.cpp" || !l.FlashAttn || !l.Fits {
		t.Fatalf("engine %q, flash_attn %v, fits %v", l.Engine, l.FlashAttn, l.Fits)
	}
	if n := mustValue(t, l, "n_ctx"); n != cells {
		t.Fatalf("n_ctx = %d", n)
	}
}

// localJSON is the library's JSON of a local result.
type localJSON struct {
	Model, Hardware, Engine string
	CacheTypeK              string `json:"cache_type_k"`
	Devices                 []map[string]any
	values                  map[string]any
}

func decodeLocal(t *testing.T, text string) localJSON {
	t.Helper()
	var d localJSON
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&d.values); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLocalAgreesWithItsJSONAndTheTool(t *testing.T) {
	l := mustLocal(t, mustModel(t, "llama-3.1-8b"), oneGPU(t, "h100-sxm-80gb"),
		mustStrategy(t, "n_ctx", 32768, "cache_type_k", "q8_0"), nil)
	d := decodeLocal(t, l.JSON())
	if d.Model != "llama-3.1-8b" || d.Hardware != "h100-sxm-80gb" || d.Engine != l.Engine || d.CacheTypeK != "q8_0" {
		t.Fatalf("head %+v", d)
	}
	names := LocalValueNames()
	if len(l.Values) != len(names) {
		t.Fatalf("%d values, %d names", len(l.Values), len(names))
	}
	for i, v := range l.Values {
		if v.Name != names[i] {
			t.Fatalf("value %d is %q, want %q", i, v.Name, names[i])
		}
		switch j := d.values[v.Name].(type) {
		case json.Number:
			if j.String() != jsonNumber(v.Bytes) {
				t.Errorf("%s = %d, JSON %s", v.Name, v.Bytes, j)
			}
		case bool:
			if j != (v.Bytes != 0) {
				t.Errorf("%s = %d, JSON %v", v.Name, v.Bytes, j)
			}
		case string: // the engine, by name
			if v.Name != "engine" || j != l.Engine {
				t.Errorf("%s = %d, JSON %q", v.Name, v.Bytes, j)
			}
		default:
			t.Errorf("%s: JSON %T", v.Name, j)
		}
	}
	if len(d.Devices) != len(l.Devices) {
		t.Fatalf("%d devices, JSON %d", len(l.Devices), len(d.Devices))
	}
	for i, dev := range l.Devices {
		j := d.Devices[i]
		if j["name"] != dev.Name || j["host"] != dev.Host || j["layers"] != float64(dev.Layers) ||
			j["total"] != float64(dev.TotalBytes) || j["capacity"] != float64(dev.CapacityBytes) {
			t.Errorf("device %d: %+v, JSON %v", i, dev, j)
		}
		var sum uint64
		for k, b := range dev.Buffers {
			if b.Name != LocalBufferNames()[k] || j[b.Name] != float64(b.Bytes) {
				t.Errorf("device %d buffer %s = %d, JSON %v", i, b.Name, b.Bytes, j[b.Name])
			}
			sum += b.Bytes
		}
		if sum != dev.TotalBytes {
			t.Errorf("device %d: buffers %d, total %d", i, sum, dev.TotalBytes)
		}
	}
	out, stderr, code := runLocalCLI(t, "serve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
		"--set", "devices_per_node=1", "--set", "n_ctx=32768", "--set", "cache_type_k=q8_0", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	if l.JSON() != out {
		t.Fatalf("JSON differs from the tool's:\n%s\n%s", l.JSON(), out)
	}
	if !strings.Contains(l.String(), "CUDA0") || !strings.Contains(l.String(), "GiB") {
		t.Fatalf("String() = %s", l.String())
	}
}

func jsonNumber(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Issue 28: a discrete GPU's preset states no host RAM; layers left on the CPU then make the
// verdict unknown (HostUnknown), not a fit; a stated RAM is checked.
func TestLocalLayersInAHostOfUnknownRAMAreNotAFit(t *testing.T) {
	m := mustModel(t, "llama-3.1-70b")
	hw := oneGPU(t, "rtx-4090")
	l := mustLocal(t, m, hw, mustStrategy(t), nil)
	if host := l.Devices[len(l.Devices)-1]; host.Layers == 0 || l.Fits || !l.HostUnknown ||
		mustValue(t, l, "shortfall") != 0 || mustValue(t, l, "host_unknown") != 1 {
		t.Fatalf("fits %v, host unknown %v: %s", l.Fits, l.HostUnknown, l)
	}
	if !strings.Contains(l.String(), "fit unknown") {
		t.Fatal(l.String())
	}
	if err := hw.Set("host_memory_bytes", "256GiB"); err != nil {
		t.Fatal(err)
	}
	if l := mustLocal(t, m, hw, mustStrategy(t), nil); !l.Fits || l.HostUnknown {
		t.Fatalf("fits %v, host unknown %v: %s", l.Fits, l.HostUnknown, l)
	}
}

func TestLocalSolveAnswerFitsAndOneMoreDoesNot(t *testing.T) {
	m := mustModel(t, "llama-3.1-8b")
	hw := oneGPU(t, "rtx-4090")
	// a host with its RAM stated: the layers left on the CPU are checked too (an unknown host
	// makes such a layout's verdict unknown, not a fit)
	if err := hw.Set("host_memory_bytes", "64GiB"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		question string
		nCtx     int64 // the strategy's n_ctx (0: the default); per sequence for max_parallel
	}{
		{"max_gpu_layers", 131072}, // a context long enough that not every layer fits on 24 GB
		{"max_context", 0},
		{"max_parallel", 8192},
	} {
		t.Run(tc.question, func(t *testing.T) {
			base := mustStrategy(t)
			if tc.nCtx != 0 {
				if err := base.Set("n_ctx", tc.nCtx); err != nil {
					t.Fatal(err)
				}
			}
			answer, err := LocalSolve(tc.question, m, hw, base, nil)
			if err != nil || answer <= 0 {
				t.Fatalf("answer %d, %v", answer, err)
			}
			at := func(value int64) *Local {
				s, err := base.Clone()
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				// the solver's layouts: llama.cpp's --fit would move layers to the CPU itself
				if err := s.Set("fit", false); err != nil {
					t.Fatal(err)
				}
				switch tc.question {
				case "max_gpu_layers":
					err = s.Set("n_gpu_layers", value)
				case "max_context":
					err = s.Set("n_ctx", value)
				default: // n_parallel sequences of the strategy's n_ctx each
					if err = s.Set("n_parallel", value); err == nil {
						err = s.Set("n_ctx", tc.nCtx*value)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				return mustLocal(t, m, hw, s, nil)
			}
			if l := at(answer); !l.Fits {
				t.Fatalf("%s %d does not fit: %s", tc.question, answer, l)
			}
			if l := at(answer + 1); l.Fits || mustValue(t, l, "shortfall") == 0 {
				t.Fatalf("%s %d fits: %s", tc.question, answer+1, l)
			}
			args := []string{"--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--set", "devices_per_node=1",
				"--set", "host_memory_bytes=64GiB", "--json"}
			if tc.nCtx != 0 {
				args = append(args, "--set", "n_ctx="+jsonNumber(uint64(tc.nCtx)))
			}
			out, stderr, code := runLocalCLI(t, "fit", args...)
			if code != 0 {
				t.Fatal(stderr)
			}
			var fit map[string]any
			if err := json.Unmarshal([]byte(out), &fit); err != nil {
				t.Fatal(err)
			}
			if fit[tc.question] != float64(answer) {
				t.Fatalf("the tool says %v, the binding %d", fit[tc.question], answer)
			}
		})
	}
	if q := LocalQuestions(); !reflect.DeepEqual(q, []string{"max_gpu_layers", "max_context", "max_parallel"}) {
		t.Fatalf("LocalQuestions() = %v", q)
	}
	_, err := LocalSolve("max_batch", m, hw, mustStrategy(t), nil)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), `question "max_batch" is not one of max_gpu_layers`) {
		t.Fatalf("unknown question: %v", err)
	}
}

func TestTensorSplitRoundTrip(t *testing.T) {
	want := []float64{3, 1}
	for _, value := range []any{"3,1", "3/1", []float64{3, 1}, []int{3, 1}, []int64{3, 1}, []float32{3, 1}, []string{"3", "1"}} {
		s := mustStrategy(t, "tensor_split", value)
		got, err := s.Get("tensor_split")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("tensor_split=%v reads back %#v, %v", value, got, err)
		}
	}
	s := mustStrategy(t)
	if got, _ := s.Get("tensor_split"); !reflect.DeepEqual(got, []float64{}) {
		t.Fatalf("unset tensor_split = %#v", got)
	}
	if k, _ := LookupKey("tensor_split"); k.Type != "list" {
		t.Fatalf("type %q", k.Type)
	}
	if err := s.Set("tensor_split", []float64{0.6, 0.4, 0}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Clone()
	defer c.Close()
	if got, _ := c.Get("tensor_split"); !reflect.DeepEqual(got, []float64{0.6, 0.4, 0}) {
		t.Fatalf("clone: %#v", got)
	}
	if err := s.Set("tensor_split", []float64{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("tensor_split"); len(got.([]float64)) != 0 {
		t.Fatalf("cleared: %#v", got)
	}
	// the list places layers as the text does, more on the larger share
	m := mustModel(t, "llama-3.1-8b")
	hw := mustHardware(t, "rtx-4090")
	if err := hw.Set("devices_per_node", 2); err != nil {
		t.Fatal(err)
	}
	byList := mustLocal(t, m, hw, mustStrategy(t, "tensor_split", []float64{3, 1}), nil)
	byText := mustLocal(t, m, hw, mustStrategy(t, "tensor_split", "3,1"), nil)
	if byList.JSON() != byText.JSON() {
		t.Fatalf("list and text differ:\n%s\n%s", byList.JSON(), byText.JSON())
	}
	if g0, g1 := byList.Devices[0].Layers, byList.Devices[1].Layers; !(g0 > g1 && g1 > 0 && g0+g1 == 32) {
		t.Fatalf("layers %d and %d", g0, g1)
	}
}

func TestTensorSplitErrorsCarryTheLibraryMessage(t *testing.T) {
	s := mustStrategy(t)
	for _, tc := range []struct {
		value  any
		status Status
		want   string
	}{
		{[]float64{0, 0}, ErrOutOfRange, "tensor_split: every value is 0"},
		{[]float64{1, -1}, ErrOutOfRange, "tensor_split: value 2 (-1) is not a finite number"},
		{make([]float64, 17), ErrOutOfRange, "tensor_split has 17 values; at most 16"},
		{3, ErrInvalidArgument, "tensor_split is a list"},
		{"3,x", ErrInvalidArgument, "tensor_split: 'x' in '3,x' is not a number"},
		{[]bool{true}, ErrInvalidArgument, "tensor_split: cannot set a []bool"},
	} {
		err := s.Set("tensor_split", tc.value)
		if !errors.Is(err, tc.status) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tensor_split=%v: %v; want %v containing %q", tc.value, err, tc.status, tc.want)
		}
	}
	if err := s.Set("micro_batch_size", []float64{3, 1}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "only a list key") {
		t.Errorf("a slice on a number key: %v", err)
	}
	// more proportions than GPUs: the estimate says so
	_, err := LocalEstimate(mustModel(t, "llama-3.1-8b"), oneGPU(t, "h100-sxm-80gb"),
		mustStrategy(t, "tensor_split", []float64{3, 1}), nil)
	if err == nil || !strings.Contains(err.Error(), "tensor_split") {
		t.Fatalf("tensor_split over 1 GPU: %v", err)
	}
}

func TestLocalErrorsCarryTheLibraryMessage(t *testing.T) {
	m, hw := mustModel(t, "llama-3.1-8b"), oneGPU(t, "h100-sxm-80gb")
	bad := mustStrategy(t, "cache_type_v", "q4_0", "flash_attn", "off")
	_, err := LocalEstimate(m, hw, bad, nil)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "needs flash attention") {
		t.Fatalf("q4_0 V cache without flash attention: %v", err)
	}
	_, stderr, code := runLocalCLI(t, "serve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
		"--set", "devices_per_node=1", "--set", "cache_type_v=q4_0", "--set", "flash_attn=off")
	if code != 2 || strings.TrimSpace(stderr) != "llmmem: error: "+e.Message {
		t.Fatalf("the tool: %d %q; the binding %q", code, stderr, e.Message)
	}
	if _, err := LocalSolve("max_context", m, hw, bad, nil); err == nil || !strings.Contains(err.Error(), "needs flash attention") {
		t.Fatalf("LocalSolve: %v", err)
	}
	if _, err := LocalEstimate(m, hw, mustStrategy(t, "engine", "vllm"), nil); err == nil || !strings.Contains(err.Error(), "engine vllm") {
		t.Fatalf("engine vllm: %v", err)
	}
	s := mustStrategy(t)
	wantError(t, "LocalEstimate(nil, hw, s, nil)", "LocalEstimate: model is nil", func() error { _, err := LocalEstimate(nil, hw, s, nil); return err })
	wantError(t, "LocalSolve(q, m, nil, s, nil)", "LocalSolve: hardware is nil", func() error { _, err := LocalSolve("max_context", m, nil, s, nil); return err })
	wantError(t, "LocalEstimate(Checkpoint{})", "was not made by this package", func() error { _, err := LocalEstimate(m, hw, s, &Checkpoint{}); return err })
	closed := mustCheckpoint(t)
	closed.Close()
	wantError(t, "LocalEstimate(closed checkpoint)", "checkpoint is closed", func() error { _, err := LocalEstimate(m, hw, s, closed); return err })
	var nilLocal *Local
	wantError(t, "Local.Close", "Local.Close: local result is nil", nilLocal.Close)
	noPanic(t, "nil and zero Local", func() {
		if _, ok := nilLocal.Value("n_ctx"); ok || nilLocal.JSON() != "" || nilLocal.String() == "" {
			t.Error("a nil Local answered")
		}
		if _, ok := nilLocal.Device("CPU"); ok {
			t.Error("a nil Local has a device")
		}
		if err := (&Local{}).Close(); err != nil {
			t.Error(err)
		}
	})
}

func TestLocalOllamaResolvesItsDefaults(t *testing.T) {
	l := mustLocal(t, mustModel(t, "llama-3.1-8b"), oneGPU(t, "h100-sxm-80gb"),
		mustStrategy(t, "engine", "ollama", "num_ctx", 8192, "num_parallel", 2), nil)
	if l.Engine != "ollama" || mustValue(t, l, "n_seq_max") != 2 || mustValue(t, l, "n_ctx_seq") != 8192 {
		t.Fatalf("%s", l.JSON())
	}
}

func TestLocalWithGGUF(t *testing.T) {
	data := os.Getenv("LLMMEM_TEST_DATA")
	if data == "" {
		t.Skip("LLMMEM_TEST_DATA is not set (meson test sets it)")
	}
	path := filepath.Join(data, "gguf", "llama-mixed.gguf")
	ck, err := OpenGGUF(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	m, err := ck.Model()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	hw := oneGPU(t, "rtx-4090")
	// the test file has no context_length: n_ctx is given (llama.cpp's 0 means the file's)
	s := mustStrategy(t, "n_ctx", 4096)
	l := mustLocal(t, m, hw, s, ck)
	var model uint64
	for _, d := range l.Devices {
		b, _ := d.Bytes("model")
		model += b
	}
	if model != ck.TotalBytes() {
		t.Fatalf("model buffers %d, the file's tensors %d", model, ck.TotalBytes())
	}
	out, stderr, code := runLocalCLI(t, "serve", "--gguf", path, "--gpu", "rtx-4090", "--set", "devices_per_node=1",
		"--set", "n_ctx=4096", "--json")
	if code != 0 || out != l.JSON() {
		t.Fatalf("the tool (%d, %s):\n%s\nthe binding:\n%s", code, stderr, out, l.JSON())
	}
	out, stderr, code = runLocalCLI(t, "fit", "--gguf", path, "--gpu", "rtx-4090", "--set", "devices_per_node=1",
		"--set", "n_ctx=4096", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var fit map[string]any
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	for _, q := range LocalQuestions() {
		answer, err := LocalSolve(q, m, hw, s, ck)
		if err != nil || fit[q] != float64(answer) {
			t.Errorf("%s: the tool %v, the binding %d (%v)", q, fit[q], answer, err)
		}
	}
}

func TestLocalHandlesAreFreed(t *testing.T) {
	before := atomic.LoadInt64(&liveHandles)
	m, _ := NewModelFromPreset("llama-3.1-8b")
	hw, _ := NewHardwareFromPreset("h100-sxm-80gb")
	s, _ := NewStrategy()
	for i := 0; i < 20; i++ {
		l, err := LocalEstimate(m, hw, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		l.Close() // twice is fine
		_ = s.Set("cache_type_v", "q4_0")
		_ = s.Set("flash_attn", "off")
		if _, err := LocalEstimate(m, hw, s, nil); err == nil {
			t.Fatal("want an error")
		}
		_ = s.Set("flash_attn", "on")
	}
	m.Close()
	hw.Close()
	s.Close()
	if after := atomic.LoadInt64(&liveHandles); after != before {
		t.Fatalf("%d C handles not freed", after-before)
	}
}
