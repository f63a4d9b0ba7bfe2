package llmmem_test

// The Go report equals the C report byte for byte: for each configuration of
// bindings/parity_cases.json the `llmmem` tool (LLMMEM_CLI, set by meson) prints its JSON at
// test time, and the binding builds the same inputs with the settings as text and as typed
// values. A configuration the tool rejects must fail with the same message. No number is
// stored here.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"llmmem"
)

type parityCase struct {
	Name     string          `json:"name"`
	Requires []string        `json:"requires"`
	Model    *string         `json:"model"`
	Config   string          `json:"config"`
	GPU      string          `json:"gpu"`
	Set      [][2]string     `json:"set"`
	Typed    json.RawMessage `json:"typed"`
	Length   uint64          `json:"length"`
	Devices  uint64          `json:"devices"`
}

type setting struct {
	key   string
	value any
}

// typedSettings decodes "typed" in order, numbers kept exact (json.Number).
func typedSettings(t *testing.T, msg json.RawMessage) []setting {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []setting
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if list, ok := v.([]any); ok {
			names := make([]string, len(list))
			for i, x := range list {
				names[i] = x.(string)
			}
			v = names
		}
		out = append(out, setting{tok.(string), v})
	}
	return out
}

func loadCases(t *testing.T) []parityCase {
	return loadCaseList(t, "cases")
}

func loadCaseList(t *testing.T, kind string) []parityCase {
	data, err := os.ReadFile(filepath.Join("..", "parity_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var cases []parityCase
	if err := json.Unmarshal(f[kind], &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func cliEstimate(t *testing.T, cli, data string, c parityCase) (string, string, int) {
	return cliRun(t, cli, data, c, "estimate", "--json")
}

func cliRun(t *testing.T, cli, data string, c parityCase, command string, extra ...string) (string, string, int) {
	args := append([]string{command}, extra...)
	args = append(args, "--gpu", c.GPU)
	if c.Model != nil {
		args = append(args, "--model", *c.Model)
	}
	if c.Config != "" {
		args = append(args, "--config", filepath.Join(data, "configs", c.Config))
	}
	for _, kv := range c.Set {
		args = append(args, "--set", kv[0]+"="+kv[1])
	}
	cmd := exec.Command(cli, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// bindingEstimateTimeline builds the case's inputs through the binding, each setting on its
// object, and gives their report and timeline as `llmmem estimate` does: the job replayed where
// the allocation tape models it (EstimateRuns), the estimate where it does not; and the plain
// estimate (Estimate).
func bindingEstimateTimeline(t *testing.T, data string, c parityCase, settings []setting) (*llmmem.Report, *llmmem.Timeline, *llmmem.Report, error) {
	var report, plain *llmmem.Report
	var timeline *llmmem.Timeline
	err := withInputs(data, c, settings, func(m *llmmem.Model, hw *llmmem.Hardware, s *llmmem.Strategy) error {
		var err error
		if report, err = llmmem.EstimateRuns(m, hw, s); err != nil && !(errors.Is(err, llmmem.ErrUnsupported) && report != nil) {
			return err
		}
		if plain, err = llmmem.Estimate(m, hw, s); err != nil {
			return err
		}
		timeline, err = llmmem.EstimateTimeline(m, hw, s)
		return err
	})
	return report, timeline, plain, err
}

// checkReplay compares the report's allocator figures with the tool's JSON ("allocator") and,
// when not replayed, its reason with the tool's text; the plain estimate is the same JSON
// without the replay.
func checkReplay(t *testing.T, variant, cli, data string, c parityCase, r, plain *llmmem.Report, stdout string) {
	var d map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal([]byte(plain.JSON()), &p); err != nil {
		t.Fatal(err)
	}
	for k, v := range d {
		if k != "allocator" && k != "fits" && k != "timeline" && string(p[k]) != string(v) {
			t.Errorf("%s: the plain estimate's %s differs from the replayed one's", variant, k)
		}
	}
	var device uint64
	if err := json.Unmarshal(d["device_total_bytes"], &device); err != nil || device != r.DeviceTotalBytes {
		t.Errorf("%s: device total %d, the tool's %d", variant, r.DeviceTotalBytes, device)
	}
	if _, ok := d["allocator"]; !ok {
		text, _, _ := cliRun(t, cli, data, c, "estimate")
		if r.Replayed() || plain.Fits != r.Fits || !strings.Contains(text, "\nallocator: not replayed: "+r.NotReplayed()+"\n") {
			t.Errorf("%s: not replayed %q, the tool's text:\n%s", variant, r.NotReplayed(), text)
		}
		return
	}
	var a struct {
		Allocated  uint64 `json:"allocated_peak"`
		Reserved   uint64 `json:"reserved_peak"`
		Low        uint64 `json:"reserved_low"`
		Free       uint64 `json:"free_at_reserved_peak"`
		Outside    uint64 `json:"outside"`
		Stride     uint64 `json:"decode_stride"`
		Runs       bool   `json:"runs"`
		Expandable *bool  `json:"runs_with_expandable_segments"`
		OOM        *struct {
			Request uint64 `json:"request"`
			After   string `json:"after"`
		} `json:"out_of_memory"`
	}
	if err := json.Unmarshal(d["allocator"], &a); err != nil {
		t.Fatal(err)
	}
	runs, replayed := r.Runs()
	allocated, _ := r.AllocatedBytes()
	reserved, _ := r.ReservedBytes()
	low, _ := r.ReservedLowBytes()
	free, _ := r.ReservedFreeBytes()
	stride, _ := r.DecodeStride()
	outside, _ := r.Bytes("runtime_overhead")
	if !replayed || r.NotReplayed() != "" || runs != a.Runs || r.Fits != a.Runs || allocated != a.Allocated || reserved != a.Reserved ||
		low != a.Low || free != a.Free || stride != a.Stride || outside != a.Outside {
		t.Errorf("%s: the allocator's figures differ from the tool's %s", variant, d["allocator"])
	}
	request, after, ok := r.OutOfMemory()
	expandable, asked := r.RunsExpandable()
	if ok != (a.OOM != nil) || (ok && (request != a.OOM.Request || after != a.OOM.After)) ||
		asked != (a.Expandable != nil) || (asked && expandable != *a.Expandable) {
		t.Errorf("%s: the out-of-memory request or expandable answer differs from the tool's %s", variant, d["allocator"])
	}
}

// withTimeline is the tool's `estimate --json`: the report's JSON with the step's timeline
// as its last member.
func withTimeline(report, timeline string) string {
	members := strings.TrimRight(report, " \n")
	members = strings.TrimRight(strings.TrimSuffix(members, "}"), " \n")
	return members + ",\n  \"timeline\": " + strings.TrimRight(timeline, "\n") + "\n}\n"
}

// withInputs builds a case's model, hardware and strategy, runs f, and closes them.
func withInputs(data string, c parityCase, settings []setting,
	f func(*llmmem.Model, *llmmem.Hardware, *llmmem.Strategy) error) error {
	var model *llmmem.Model
	var err error
	switch {
	case c.Config != "":
		model, err = llmmem.NewModelFromHFConfig(filepath.Join(data, "configs", c.Config))
	case c.Model != nil:
		model, err = llmmem.NewModelFromPreset(*c.Model)
	default:
		model, err = llmmem.NewModel()
	}
	if err != nil {
		return err
	}
	defer model.Close()
	hw, err := llmmem.NewHardwareFromPreset(c.GPU)
	if err != nil {
		return err
	}
	defer hw.Close()
	s, err := llmmem.NewStrategy()
	if err != nil {
		return err
	}
	defer s.Close()
	for _, kv := range settings {
		k, err := llmmem.LookupKey(kv.key)
		if err != nil {
			return err
		}
		switch k.Object {
		case "model":
			err = model.Set(kv.key, kv.value)
		case "hardware":
			err = hw.Set(kv.key, kv.value)
		default:
			err = s.Set(kv.key, kv.value)
		}
		if err != nil {
			return err
		}
	}
	return f(model, hw, s)
}

func TestParityWithCLI(t *testing.T) {
	cli, data := os.Getenv("LLMMEM_CLI"), os.Getenv("LLMMEM_TEST_DATA")
	if cli == "" || data == "" {
		t.Skip("LLMMEM_CLI and LLMMEM_TEST_DATA are not set (meson test sets them)")
	}
	kinds := map[string]bool{}
	for _, c := range loadCases(t) {
		c := c
		t.Run(c.Name, func(t *testing.T) {
			for _, name := range c.Requires {
				if _, err := llmmem.LookupKey(name); err != nil {
					t.Skipf("the library has no key %s yet", name)
				}
			}
			stdout, stderr, code := cliEstimate(t, cli, data, c)
			text := make([]setting, len(c.Set))
			for i, kv := range c.Set {
				text[i] = setting{kv[0], kv[1]}
			}
			typed := typedSettings(t, c.Typed)
			for _, s := range typed {
				switch s.value.(type) {
				case json.Number:
					kinds["number"] = true
				case bool:
					kinds["bool"] = true
				case string:
					kinds["string"] = true
				case []string:
					kinds["list"] = true
				}
			}
			for variant, settings := range map[string][]setting{"text": text, "typed": typed} {
				r, tl, plain, err := bindingEstimateTimeline(t, data, c, settings)
				if code != 0 {
					line := strings.TrimSpace(stderr)
					line = line[strings.LastIndex(line, "\n")+1:]
					want := strings.TrimPrefix(line, "llmmem: error: ")
					var e *llmmem.Error
					if !errors.As(err, &e) || e.Message != want {
						t.Errorf("%s: binding error %v, tool %q", variant, err, want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", variant, err)
				}
				if got := withTimeline(r.JSON(), tl.JSON()); got != stdout {
					t.Errorf("%s: JSON differs\nbinding: %s\ntool:    %s", variant, got, stdout)
				}
				checkReplay(t, variant, cli, data, c, r, plain, stdout)
				// the highest point is the estimate's total (the first on a tie); the report's moment is
				// one of the highest
				if p, ok := tl.Peak(); !ok || p.TotalBytes != r.TotalBytes {
					t.Errorf("%s: the timeline's peak %+v is not the report's total %d", variant, p, r.TotalBytes)
				}
				found := false
				for _, p := range tl.Points {
					found = found || (p.TotalBytes == r.TotalBytes && p.Phase == r.PeakPhase && p.Layer == r.PeakLayer)
				}
				if !found {
					t.Errorf("%s: no highest point at the report's moment (%s, layer %d)", variant, r.PeakPhase, r.PeakLayer)
				}
				var d struct {
					PerDevice       map[string]uint64   `json:"per_device"`
					CapacityBytes   uint64              `json:"capacity_bytes"`
					Fits            bool                `json:"fits"`
					Parameters      map[string]uint64   `json:"parameters"`
					Stages          []map[string]uint64 `json:"stages"`
					MostLoadedStage int                 `json:"most_loaded_stage"`
					HostBytes       uint64              `json:"host_bytes_per_node"`
					NVMeBytes       uint64              `json:"nvme_bytes_per_node"`
					CommBytes       map[string]uint64   `json:"comm_bytes_per_step"`
					TrainingPeak    *struct {
						Phase string `json:"phase"`
						Layer int64  `json:"layer"`
					} `json:"training_peak"`
					InferencePeak *struct { // transformers' generate loop: its prefill or decode
						Phase string `json:"phase"`
						Layer int64  `json:"layer"`
					} `json:"inference_peak"`
				}
				if err := json.Unmarshal([]byte(stdout), &d); err != nil {
					t.Fatal(err)
				}
				if p := d.InferencePeak; p != nil && (r.PeakPhase != p.Phase || r.PeakLayer != p.Layer) {
					t.Errorf("%s: inference peak %s layer %d, tool %s layer %d", variant, r.PeakPhase, r.PeakLayer, p.Phase, p.Layer)
				}
				if d.TrainingPeak == nil && d.InferencePeak == nil && (r.PeakPhase != "static" || r.PeakLayer != -1) {
					t.Errorf("%s: inference report with peak %s, layer %d", variant, r.PeakPhase, r.PeakLayer)
				}
				if p := d.TrainingPeak; p != nil && (r.PeakPhase != p.Phase || r.PeakLayer != p.Layer) {
					t.Errorf("%s: peak %s layer %d, tool %s layer %d", variant, r.PeakPhase, r.PeakLayer, p.Phase, p.Layer)
				}
				if d.Stages != nil {
					if len(r.Stages) != len(d.Stages) || r.MostLoadedStage != d.MostLoadedStage ||
						r.HostBytes != d.HostBytes || r.NVMeBytes != d.NVMeBytes {
						t.Errorf("%s: stages, host or NVMe bytes differ from the tool's", variant)
					}
					for i := 0; i < len(r.Stages) && i < len(d.Stages); i++ {
						st, ds := r.Stages[i], d.Stages[i]
						if st.FirstLayer != ds["first_layer"] || st.Layers != ds["layers"] || st.TotalBytes != ds["total"] {
							t.Errorf("%s: stage %d differs", variant, i)
						}
						for _, comp := range st.Components {
							if comp.Bytes != ds[comp.Name] {
								t.Errorf("%s: stage %d %s %d vs %d", variant, i, comp.Name, comp.Bytes, ds[comp.Name])
							}
						}
					}
					for _, c := range r.CommBytes {
						if c.Bytes != d.CommBytes[c.Name] {
							t.Errorf("%s: comm %s %d vs %d", variant, c.Name, c.Bytes, d.CommBytes[c.Name])
						}
					}
				}
				for _, comp := range r.Components {
					if d.PerDevice[comp.Name] != comp.Bytes {
						t.Errorf("%s: %s %d vs %d", variant, comp.Name, comp.Bytes, d.PerDevice[comp.Name])
					}
				}
				for _, g := range r.Parameters {
					if d.Parameters[g.Group] != g.Count {
						t.Errorf("%s: %s %d vs %d", variant, g.Group, g.Count, d.Parameters[g.Group])
					}
				}
				if r.TotalBytes != d.PerDevice["total"] || r.CapacityBytes != d.CapacityBytes || r.Fits != d.Fits ||
					r.TotalParameters != d.Parameters["total"] || r.ActiveParameters != d.Parameters["active"] {
					t.Errorf("%s: totals differ from the tool's", variant)
				}
			}
		})
	}
	for _, k := range []string{"number", "bool", "string", "list"} {
		if !kinds[k] {
			t.Errorf("no case sets a typed %s", k)
		}
	}
}

func TestPresetsEqualCLIListings(t *testing.T) {
	cli := os.Getenv("LLMMEM_CLI")
	if cli == "" {
		t.Skip("LLMMEM_CLI is not set (meson test sets it)")
	}
	first := func(cmd string) []string {
		out, err := exec.Command(cli, cmd).Output()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			names = append(names, strings.Fields(line)[0])
		}
		return names
	}
	sorted := func(names []string) string { /* the CLI groups the models by family */
		names = append([]string(nil), names...)
		sort.Strings(names)
		return strings.Join(names, " ")
	}
	if got, want := sorted(llmmem.ModelPresets()), sorted(first("models")); got != want {
		t.Errorf("models: %s\nwant %s", got, want)
	}
	if got, want := strings.Join(llmmem.HardwarePresets(), " "), strings.Join(first("gpus"), " "); got != want {
		t.Errorf("gpus: %s\nwant %s", got, want)
	}
}

func cliEnv(t *testing.T) (string, string) {
	cli, data := os.Getenv("LLMMEM_CLI"), os.Getenv("LLMMEM_TEST_DATA")
	if cli == "" || data == "" {
		t.Skip("LLMMEM_CLI and LLMMEM_TEST_DATA are not set (meson test sets them)")
	}
	return cli, data
}

func TestServingParityWithCLI(t *testing.T) {
	cli, data := cliEnv(t)
	for _, c := range loadCaseList(t, "serve_cases") {
		c := c
		t.Run(c.Name, func(t *testing.T) {
			extra := []string{"--json"}
			settings := typedSettings(t, c.Typed)
			if c.Length != 0 {
				extra = append(extra, "--length", fmt.Sprint(c.Length))
				settings = append(settings, setting{"request_tokens", c.Length})
			}
			stdout, stderr, code := cliRun(t, cli, data, c, "serve", extra...)
			err := withInputs(data, c, settings, func(m *llmmem.Model, hw *llmmem.Hardware, s *llmmem.Strategy) error {
				sv, err := llmmem.Serve(m, hw, s)
				if err != nil {
					return err
				}
				defer sv.Close()
				got := sv.JSON()
				if !strings.HasSuffix(got, "\n") {
					got += "\n"
				}
				if got != stdout {
					t.Errorf("JSON differs\nbinding: %s\ntool:    %s", got, stdout)
				}
				tokens, _ := sv.Value("request_tokens")
				conc, err := sv.MaxConcurrency(tokens)
				if want, _ := sv.Value("max_concurrency"); err != nil || conc != want {
					t.Errorf("MaxConcurrency(%d) = %d, %v; value %d", tokens, conc, err, want)
				}
				longest, err := sv.LongestRequest()
				if want, _ := sv.Value("max_model_len"); err != nil || longest != want {
					t.Errorf("LongestRequest = %d, %v; value %d", longest, err, want)
				}
				perToken, err := llmmem.KVBytesPerToken(m, s)
				if want, _ := sv.Value("bytes_per_token"); err != nil || perToken != want {
					t.Errorf("KVBytesPerToken = %d, %v; value %d", perToken, err, want)
				}
				return nil
			})
			if code != 0 {
				line := strings.TrimSpace(stderr)
				want := strings.TrimPrefix(line[strings.LastIndex(line, "\n")+1:], "llmmem: error: ")
				var e *llmmem.Error
				if !errors.As(err, &e) || e.Message != want {
					t.Errorf("binding error %v, tool %q", err, want)
				}
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func fitLine(t *testing.T, text, label string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, label+":") {
			return strings.TrimSpace(strings.TrimPrefix(line, label+":"))
		}
	}
	t.Fatalf("no line %q in %s", label, text)
	return ""
}

func TestSolversParityWithCLI(t *testing.T) {
	cli, data := cliEnv(t)
	for _, c := range loadCaseList(t, "fit_cases") {
		c := c
		t.Run(c.Name, func(t *testing.T) {
			maxDevices := c.Devices
			if maxDevices == 0 {
				maxDevices = 1024
			}
			stdout, stderr, code := cliRun(t, cli, data, c, "fit", "--devices", fmt.Sprint(maxDevices))
			if code != 0 {
				t.Fatal(stderr)
			}
			first := func(s string) string { return strings.Fields(s)[0] }
			err := withInputs(data, c, typedSettings(t, c.Typed), func(m *llmmem.Model, hw *llmmem.Hardware, s *llmmem.Strategy) error {
				mbs, err := llmmem.SolveMaxMicroBatch(m, hw, s)
				if want := first(fitLine(t, stdout, "largest micro_batch_size that fits")); err != nil || fmt.Sprint(mbs) != want {
					t.Errorf("SolveMaxMicroBatch = %d, %v; tool %s", mbs, err, want)
				}
				seq, err := llmmem.SolveMaxSequenceLength(m, hw, s)
				if want := first(fitLine(t, stdout, "longest sequence_length that fits")); err != nil || fmt.Sprint(seq) != want {
					t.Errorf("SolveMaxSequenceLength = %d, %v; tool %s", seq, err, want)
				}
				format, err := llmmem.SolveWeightFormat(m, hw, s)
				if want := fitLine(t, stdout, "least compressed weight_format"); want == "none fits" {
					if !errors.Is(err, llmmem.ErrNotFound) {
						t.Errorf("SolveWeightFormat = %q, %v; tool: none fits", format, err)
					}
				} else if err != nil || format != want {
					t.Errorf("SolveWeightFormat = %q, %v; tool %s", format, err, want)
				}
				n, err := llmmem.SolveMinDevices(m, hw, s, maxDevices)
				want := fitLine(t, stdout, "fewest devices with a layout that fits")
				if strings.HasPrefix(want, "more than") {
					want = "0"
				}
				if err != nil || fmt.Sprint(n) != first(want) {
					t.Errorf("SolveMinDevices = %d, %v; tool %s", n, err, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPlanParityWithCLI(t *testing.T) {
	cli, data := cliEnv(t)
	for _, c := range loadCaseList(t, "plan_cases") {
		c := c
		t.Run(c.Name, func(t *testing.T) {
			stdout, stderr, code := cliRun(t, cli, data, c, "plan", "--json", "--top", "0", "--devices", fmt.Sprint(c.Devices))
			if code != 0 {
				t.Fatal(stderr)
			}
			var want struct {
				Candidates uint64                       `json:"candidates"`
				Fitting    int                          `json:"fitting"`
				Layouts    []map[string]json.RawMessage `json:"layouts"`
			}
			if err := json.Unmarshal([]byte(stdout), &want); err != nil {
				t.Fatal(err)
			}
			err := withInputs(data, c, typedSettings(t, c.Typed), func(m *llmmem.Model, hw *llmmem.Hardware, s *llmmem.Strategy) error {
				layouts, candidates, err := llmmem.Plan(m, hw, s, c.Devices)
				if err != nil {
					return err
				}
				defer llmmem.CloseLayouts(layouts)
				// the library's JSON, byte for byte as the tool prints it, for every layout and the cheapest 2
				text, err := llmmem.PlanJSON(m, hw, s, c.Devices, 0)
				if err != nil {
					return err
				}
				if text != stdout {
					t.Errorf("PlanJSON differs from the tool's:\n%s\ntool:\n%s", text, stdout)
				}
				two, err := llmmem.PlanJSON(m, hw, s, c.Devices, 2)
				if err != nil {
					return err
				}
				if toolTwo, stderr, code := cliRun(t, cli, data, c, "plan", "--json", "--top", "2", "--devices", fmt.Sprint(c.Devices)); code != 0 || two != toolTwo {
					t.Errorf("PlanJSON top 2 differs from the tool's (%d %s):\n%s\ntool:\n%s", code, stderr, two, toolTwo)
				}
				if candidates != want.Candidates || len(layouts) != want.Fitting || len(layouts) != len(want.Layouts) {
					t.Fatalf("%d layouts of %d candidates; tool %d of %d", len(layouts), candidates, want.Fitting, want.Candidates)
				}
				for i, l := range layouts {
					w := want.Layouts[i]
					var nbytes uint64
					var cost float64
					_ = json.Unmarshal(w["bytes"], &nbytes)
					_ = json.Unmarshal(w["cost_seconds"], &cost)
					if l.Bytes != nbytes || math.Abs(l.CostSeconds-cost) > 1e-5*cost {
						t.Errorf("layout %d: %d bytes, %g s; tool %d, %g", i, l.Bytes, l.CostSeconds, nbytes, cost)
					}
					for name, raw := range w {
						if _, err := llmmem.LookupKey(name); err != nil {
							continue // the tool's own columns (sharding)
						}
						got, err := l.Strategy.Get(name)
						if err != nil || fmt.Sprint(got) != strings.Trim(string(raw), `"`) {
							t.Errorf("layout %d: %s = %v, %v; tool %s", i, name, got, err, raw)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The step's timeline equals `llmmem timeline --json`, byte for byte and point by point.
func TestTimelineParityWithCLI(t *testing.T) {
	cli, data := cliEnv(t)
	for _, c := range loadCases(t) {
		c := c
		t.Run(c.Name, func(t *testing.T) {
			for _, name := range c.Requires {
				if _, err := llmmem.LookupKey(name); err != nil {
					t.Skipf("the library has no key %s yet", name)
				}
			}
			stdout, stderr, code := cliRun(t, cli, data, c, "timeline", "--json")
			_, tl, _, err := bindingEstimateTimeline(t, data, c, typedSettings(t, c.Typed))
			if code != 0 {
				line := strings.TrimSpace(stderr)
				want := strings.TrimPrefix(line[strings.LastIndex(line, "\n")+1:], "llmmem: error: ")
				var e *llmmem.Error
				if !errors.As(err, &e) || e.Message != want {
					t.Errorf("binding error %v, tool %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := tl.JSON()
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			if got != stdout {
				t.Errorf("JSON differs\nbinding: %s\ntool:    %s", got, stdout)
			}
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
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatal(err)
			}
			if tl.Stage != d.Stage || tl.PeakIndex != d.PeakIndex || len(tl.Points) != len(d.Points) {
				t.Fatalf("stage %d, peak %d, %d points; tool %d, %d, %d", tl.Stage, tl.PeakIndex, len(tl.Points),
					d.Stage, d.PeakIndex, len(d.Points))
			}
			for i, p := range tl.Points {
				want := d.Points[i]
				if p.Phase != want.Phase || p.Layer != want.Layer || p.TotalBytes != want.Total ||
					len(p.Components) != len(want.Bytes) {
					t.Errorf("point %d: %+v, tool %+v", i, p, want)
				}
				for _, comp := range p.Components {
					if comp.Bytes != want.Bytes[comp.Name] {
						t.Errorf("point %d: %s %d, tool %d", i, comp.Name, comp.Bytes, want.Bytes[comp.Name])
					}
				}
			}
		})
	}
}

// The caching allocator's timeline equals `llmmem timeline --allocator --json`, byte for byte and
// point by point (the measured H100 job, and its generate call).
func TestTimelineRunsParityWithCLI(t *testing.T) {
	cli, data := cliEnv(t)
	config := filepath.Join(data, "gpu", "configs", "llama-3.2-1b.json")
	for _, sets := range [][]string{
		{"framework=hf_trainer", "mode=training", "precision_recipe=pure_bf16", "micro_batch_size=2", "sequence_length=2048"},
		{"framework=hf_trainer", "mode=inference", "micro_batch_size=1", "sequence_length=16", "max_new_tokens=4"},
	} {
		args := []string{"timeline", "--allocator", "--json", "--gpu", "h100-sxm-80gb", "--config", config}
		for _, kv := range sets {
			args = append(args, "--set", kv)
		}
		out, err := exec.Command(cli, args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		model, err := llmmem.NewModelFromHFConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		defer model.Close()
		gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
		defer gpu.Close()
		strategy, _ := llmmem.NewStrategy()
		defer strategy.Close()
		for _, kv := range sets {
			k, v, _ := strings.Cut(kv, "=")
			if err := strategy.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		tl, err := llmmem.EstimateTimelineRuns(model, gpu, strategy)
		if err != nil {
			t.Fatal(err)
		}
		got := tl.JSON()
		if !strings.HasSuffix(got, "\n") {
			got += "\n"
		}
		if got != string(out) {
			t.Errorf("%v: JSON differs\nbinding: %s\ntool:    %s", sets, got, out)
		}
		var d struct {
			PeakIndex int `json:"peak_index"`
			Points    []struct {
				Phase    string `json:"phase"`
				Layer    int64  `json:"layer"`
				Total    uint64 `json:"total"`
				Step     uint64 `json:"step"`
				Reserved uint64 `json:"reserved"`
			} `json:"points"`
		}
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatal(err)
		}
		if tl.PeakIndex != d.PeakIndex || len(tl.Points) != len(d.Points) {
			t.Fatalf("%v: peak %d, %d points; tool %d, %d", sets, tl.PeakIndex, len(tl.Points), d.PeakIndex, len(d.Points))
		}
		for i, p := range tl.Points {
			w := d.Points[i]
			if p.Phase != w.Phase || p.Layer != w.Layer || p.TotalBytes != w.Total || p.Step != w.Step || p.ReservedBytes != w.Reserved {
				t.Errorf("%v: point %d: %+v, tool %+v", sets, i, p, w)
			}
		}
	}
}
