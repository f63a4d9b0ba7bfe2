package llmmem

import (
	"fmt"
	"math"
	"runtime"

	"llmmem/internal/raw"
)

// ---------------------------------------------------------------------------
// Capacity solvers
// ---------------------------------------------------------------------------

// readInputs runs f with the three inputs read-locked (estimates may share them), in the
// order model, hardware, strategy; a nil input is an error naming it and fn.
func readInputs(fn string, model *Model, hardware *Hardware, strategy *Strategy, f func() error) error {
	switch {
	case model == nil:
		return errNil(fn, "model")
	case hardware == nil:
		return errNil(fn, "hardware")
	case strategy == nil:
		return errNil(fn, "strategy")
	}
	return model.read("model", func() error {
		return hardware.read("hardware", func() error {
			return strategy.read("strategy", f)
		})
	})
}

// SolveMaxMicroBatch is the largest micro_batch_size for which the estimate fits (0 when even
// 1 does not), every other setting as given.
func SolveMaxMicroBatch(model *Model, hardware *Hardware, strategy *Strategy) (uint64, error) {
	out := []uint64{0}
	err := readInputs("SolveMaxMicroBatch", model, hardware, strategy, func() error {
		return call(func() raw.Enum_SS_llmmem_status {
			return raw.Llmmem_solve_max_micro_batch(out, model.h, hardware.h, strategy.h)
		})
	})
	return out[0], err
}

// SolveMaxSequenceLength is the longest sequence_length that fits (0 when none does).
func SolveMaxSequenceLength(model *Model, hardware *Hardware, strategy *Strategy) (uint64, error) {
	out := []uint64{0}
	err := readInputs("SolveMaxSequenceLength", model, hardware, strategy, func() error {
		return call(func() raw.Enum_SS_llmmem_status {
			return raw.Llmmem_solve_max_sequence_length(out, model.h, hardware.h, strategy.h)
		})
	})
	return out[0], err
}

// SolveWeightFormat is the weight format needing the least compression that fits ("bf16",
// "fp8_e4m3", ...); an ErrNotFound error when none does.
func SolveWeightFormat(model *Model, hardware *Hardware, strategy *Strategy) (string, error) {
	out := []int64{0}
	err := readInputs("SolveWeightFormat", model, hardware, strategy, func() error {
		return call(func() raw.Enum_SS_llmmem_status {
			return raw.Llmmem_solve_weight_format(out, model.h, hardware.h, strategy.h)
		})
	})
	if err != nil {
		return "", err
	}
	return raw.Llmmem_choice_name(raw.LLMMEM_KEY_WEIGHT_FORMAT, out[0]), nil
}

// SolveMinDevices is the fewest devices (up to maxDevices) on which the planner finds a layout
// that fits; 0 when none does.
func SolveMinDevices(model *Model, hardware *Hardware, strategy *Strategy, maxDevices uint64) (uint64, error) {
	out := []uint64{0}
	err := readInputs("SolveMinDevices", model, hardware, strategy, func() error {
		return call(func() raw.Enum_SS_llmmem_status {
			return raw.Llmmem_solve_min_devices(out, model.h, hardware.h, strategy.h, maxDevices)
		})
	})
	return out[0], err
}

// ---------------------------------------------------------------------------
// Layout planner
// ---------------------------------------------------------------------------

// Layout is one layout the planner found: a strategy (the base with the layout's keys set;
// Close it), its cost in estimated seconds per step (a ranking proxy) and the bytes of its
// most loaded device.
type Layout struct {
	Strategy    *Strategy
	CostSeconds float64
	Bytes       uint64
}

// Plan lists every valid layout of `devices` devices that fits, cheapest first, and how many
// valid layouts were estimated. Close the layouts' strategies when done (CloseLayouts).
func Plan(model *Model, hardware *Hardware, base *Strategy, devices uint64) ([]Layout, uint64, error) {
	var layouts []Layout
	var candidates uint64
	err := runPlan("Plan", model, hardware, base, devices, nil, func(p raw.PlanHandle) error {
		candidates = raw.Llmmem_plan_candidates(p)
		for i := int64(0); i < raw.Llmmem_plan_count(p); i++ {
			seconds, nbytes := []float64{0}, []uint64{0}
			if err := lastError(raw.Llmmem_plan_cost(seconds, nbytes, p, i)); err != nil {
				CloseLayouts(layouts)
				return err
			}
			h := raw.Llmmem_bind_plan_get(p, i)
			if h.Swigcptr() == 0 {
				CloseLayouts(layouts)
				return lastError(raw.Llmmem_bind_last_factory_status())
			}
			layouts = append(layouts, Layout{Strategy: newStrategy(h), CostSeconds: seconds[0], Bytes: nbytes[0]})
		}
		return nil
	})
	return layouts, candidates, err
}

// PlanJSON runs the same search as Plan and gives the library's JSON of it, byte for byte as
// `llmmem plan --json --top top` prints it: the model and hardware names, the devices, the
// candidates, how many fit, and the cheapest `top` layouts (0: every one that fits) with their
// keys, cost_seconds and bytes.
func PlanJSON(model *Model, hardware *Hardware, base *Strategy, devices, top uint64) (string, error) {
	var text string
	limit := top
	if limit > math.MaxInt64 { // more than can fit: every one, as 0 does
		limit = 0
	}
	err := runPlan("PlanJSON", model, hardware, base, devices, &limit, func(p raw.PlanHandle) error {
		text = raw.Llmmem_bind_plan_json(p)
		if text == "" {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		return nil
	})
	return text, err
}

// runPlan runs the planner on the inputs (read-locked) with the given limit (nil: the library's
// default) and hands the filled plan to f, on one locked OS thread; fn names the caller in errors.
func runPlan(fn string, model *Model, hardware *Hardware, base *Strategy, devices uint64, limit *uint64,
	f func(p raw.PlanHandle) error) error {
	if model != nil && hardware != nil && base == nil {
		return errNil(fn, "base")
	}
	return readInputs(fn, model, hardware, base, func() error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p := raw.Llmmem_bind_plan_new()
		if p.Swigcptr() == 0 {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		defer raw.DeletePlanHandle(p)
		if limit != nil {
			if err := lastError(raw.Llmmem_plan_set_limit(p, int64(*limit))); err != nil {
				return err
			}
		}
		if err := lastError(raw.Llmmem_plan_run(p, model.h, hardware.h, base.h, devices)); err != nil {
			return err
		}
		return f(p)
	})
}

// CloseLayouts closes the strategies of a plan's layouts (nil ones are skipped).
func CloseLayouts(layouts []Layout) {
	for _, l := range layouts {
		if l.Strategy != nil {
			l.Strategy.Close()
		}
	}
}

// ---------------------------------------------------------------------------
// Serving
// ---------------------------------------------------------------------------

// Serving is a serving estimate as vLLM computes it: the KV cache budget, blocks, concurrent
// requests and the longest request. Values holds every number of the C result by name; the
// methods answer questions that take a request length. Close it when done.
type Serving struct {
	handle
	h      raw.ServingHandle
	Values []Amount // every number of the result, in the library's order ("num_blocks", ...)
	Fits   bool     // one request of max_model_len fits (vLLM starts)
	json   string
}

// Serve estimates serving capacity; the error names the key and value at fault.
func Serve(model *Model, hardware *Hardware, strategy *Strategy) (*Serving, error) {
	var sv *Serving
	err := readInputs("Serve", model, hardware, strategy, func() error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h := raw.Llmmem_bind_serving_new()
		if h.Swigcptr() == 0 {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		if err := lastError(raw.Llmmem_serving_estimate(h, model.h, hardware.h, strategy.h)); err != nil {
			raw.DeleteServingHandle(h)
			return err
		}
		text := raw.Llmmem_bind_serving_json(h)
		if text == "" {
			raw.DeleteServingHandle(h)
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		track(1)
		sv = &Serving{h: h, json: text, Fits: raw.Llmmem_serving_get(h, raw.LLMMEM_SERVING_FITS) != 0}
		sv.open = true
		for i := 0; i < int(raw.Llmmem_serving_value_count()); i++ {
			v := raw.Enum_SS_llmmem_serving_value(i)
			sv.Values = append(sv.Values, Amount{Name: raw.Llmmem_serving_value_name(v), Bytes: raw.Llmmem_serving_get(h, v)})
		}
		runtime.SetFinalizer(sv, (*Serving).Close)
		return nil
	})
	return sv, err
}

// Value gives one number of the result by name ("num_blocks", "max_concurrency", ...).
func (sv *Serving) Value(name string) (uint64, bool) {
	if sv == nil {
		return 0, false
	}
	for _, v := range sv.Values {
		if v.Name == name {
			return v.Bytes, true
		}
	}
	return 0, false
}

// JSON is the library's JSON, byte for byte as `llmmem serve --json` prints it ("" for a nil
// Serving).
func (sv *Serving) JSON() string {
	if sv == nil {
		return ""
	}
	return sv.json
}

func (sv *Serving) query(fn string, f func() raw.Enum_SS_llmmem_status) error {
	if sv == nil {
		return errNil(fn, "serving result")
	}
	return sv.read("serving result", func() error { return call(f) })
}

// RequestBlocks gives the blocks one sequence of `tokens` tokens needs and the bytes of them
// it does not fill.
func (sv *Serving) RequestBlocks(tokens uint64) (blocks, wasteBytes uint64, err error) {
	b, w := []uint64{0}, []uint64{0}
	err = sv.query("Serving.RequestBlocks", func() raw.Enum_SS_llmmem_status { return raw.Llmmem_serving_request_blocks(b, w, sv.h, tokens) })
	return b[0], w[0], err
}

// FitsRequest says whether one request of `tokens` tokens fits.
func (sv *Serving) FitsRequest(tokens uint64) (bool, error) {
	out := []int64{0}
	err := sv.query("Serving.FitsRequest", func() raw.Enum_SS_llmmem_status { return raw.Llmmem_serving_fits_request(out, sv.h, tokens) })
	return out[0] != 0, err
}

// MaxConcurrency counts the requests of `tokens` tokens each that fit at once.
func (sv *Serving) MaxConcurrency(tokens uint64) (uint64, error) {
	out := []uint64{0}
	err := sv.query("Serving.MaxConcurrency", func() raw.Enum_SS_llmmem_status { return raw.Llmmem_serving_max_concurrency(out, sv.h, tokens) })
	return out[0], err
}

// LongestRequest is the longest single request the blocks hold, at most max_model_len.
func (sv *Serving) LongestRequest() (uint64, error) {
	out := []uint64{0}
	err := sv.query("Serving.LongestRequest", func() raw.Enum_SS_llmmem_status { return raw.Llmmem_serving_max_model_len(out, sv.h) })
	return out[0], err
}

// MaxBatch counts the sequences of `tokens` tokens whose contiguous cache fits the budget.
func (sv *Serving) MaxBatch(tokens uint64) (uint64, error) {
	out := []uint64{0}
	err := sv.query("Serving.MaxBatch", func() raw.Enum_SS_llmmem_status { return raw.Llmmem_serving_max_batch(out, sv.h, tokens) })
	return out[0], err
}

// String summarises the result with GiB (2^30 bytes) and GB (10^9 bytes) labelled.
func (sv *Serving) String() string {
	if sv == nil {
		return "<nil serving result>"
	}
	kv, _ := sv.Value("kv_cache_bytes")
	blocks, _ := sv.Value("num_blocks")
	conc, _ := sv.Value("max_concurrency")
	tokens, _ := sv.Value("request_tokens")
	return fmt.Sprintf("KV cache %d bytes (%.2f GiB, %.2f GB), %d blocks, %d concurrent requests of %d tokens, fits: %v",
		kv, float64(kv)/(1<<30), float64(kv)/1e9, blocks, conc, tokens, sv.Fits)
}

// Close frees the C result. Closing twice is fine.
func (sv *Serving) Close() error {
	if sv == nil {
		return errNil("Serving.Close", "serving result")
	}
	sv.closeWith(func() {
		raw.DeleteServingHandle(sv.h)
		sv.h = nil
		runtime.SetFinalizer(sv, nil)
	})
	return nil
}

// KVBytesPerToken is the paged KV bytes of one token: every layer of the most loaded rank,
// in the strategy's kv_cache_dtype.
func KVBytesPerToken(model *Model, strategy *Strategy) (uint64, error) {
	out := []uint64{0}
	switch {
	case model == nil:
		return 0, errNil("KVBytesPerToken", "model")
	case strategy == nil:
		return 0, errNil("KVBytesPerToken", "strategy")
	}
	err := model.read("model", func() error {
		return strategy.read("strategy", func() error {
			return call(func() raw.Enum_SS_llmmem_status { return raw.Llmmem_kv_bytes_per_token(out, model.h, strategy.h) })
		})
	})
	return out[0], err
}

// KVCacheBytes is the bytes of a contiguous KV cache (Hugging Face generate): sequences x
// tokensEach tokens.
func KVCacheBytes(model *Model, strategy *Strategy, sequences, tokensEach uint64) (uint64, error) {
	out := []uint64{0}
	switch {
	case model == nil:
		return 0, errNil("KVCacheBytes", "model")
	case strategy == nil:
		return 0, errNil("KVCacheBytes", "strategy")
	}
	err := model.read("model", func() error {
		return strategy.read("strategy", func() error {
			return call(func() raw.Enum_SS_llmmem_status {
				return raw.Llmmem_kv_cache_bytes(out, model.h, strategy.h, sequences, tokensEach)
			})
		})
	})
	return out[0], err
}
