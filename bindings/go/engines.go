package llmmem

import (
	"runtime"

	"llmmem/internal/raw"
)

// EngineRow is one engine's figures for a job (EnginesEstimate): the figures of one GPU (a
// serving rank; a local engine's most loaded GPU), or the status and message of its refusal.
type EngineRow struct {
	Engine  string   // "vllm", "llama.cpp", "ollama", "sglang", "trtllm"
	Status  Status   // OK, or the status the engine refused the job with
	Message string   // the engine's message when it refused ("" otherwise)
	Values  []Amount // "weights", "activations", "cuda_graphs", "kv_bytes", "kv_tokens", "request_tokens", "concurrency", "fits"
	Fits    bool     // the engine starts and one request fits
}

// Engines is the job under every engine side by side.
type Engines struct {
	Rows []EngineRow
	JSON string // byte for byte as `llmmem serve --engine all --json` prints it
}

// EnginesEstimate runs the model, hardware and strategy under every engine (the strategy's engine
// is ignored); gguf may be nil (a GGUF the local engines place). An engine's refusal is its row's
// Status and Message, not an error.
func EnginesEstimate(model *Model, hardware *Hardware, strategy *Strategy, gguf *Checkpoint) (*Engines, error) {
	var out *Engines
	err := readLocalInputs("EnginesEstimate", model, hardware, strategy, gguf, func(ck raw.CheckpointHandle) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h := raw.Llmmem_bind_engines_new()
		if h.Swigcptr() == 0 {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		defer raw.DeleteEnginesHandle(h)
		if err := lastError(raw.Llmmem_engines_estimate(h, model.h, ck, hardware.h, strategy.h)); err != nil {
			return err
		}
		text := raw.Llmmem_bind_engines_json(h)
		if text == "" {
			return lastError(raw.Llmmem_bind_last_factory_status())
		}
		out = &Engines{JSON: text}
		for i := int64(0); i < raw.Llmmem_engines_count(h); i++ {
			row := EngineRow{
				Engine:  raw.Llmmem_choice_name(raw.LLMMEM_KEY_ENGINE, int64(raw.Llmmem_engines_engine(h, i))),
				Status:  Status(raw.Llmmem_engines_status(h, i)),
				Message: raw.Llmmem_engines_message(h, i),
				Fits:    raw.Llmmem_engines_get(h, i, raw.LLMMEM_ENGINES_FITS) != 0,
			}
			for v := 0; v < int(raw.Llmmem_engines_value_count()); v++ {
				value := raw.Enum_SS_llmmem_engines_value(v)
				row.Values = append(row.Values, Amount{Name: raw.Llmmem_engines_value_name(value), Bytes: raw.Llmmem_engines_get(h, i, value)})
			}
			out.Rows = append(out.Rows, row)
		}
		return nil
	})
	return out, err
}

// Value gives one figure of a row by name ("kv_tokens", "concurrency", ...).
func (r EngineRow) Value(name string) (uint64, bool) {
	for _, v := range r.Values {
		if v.Name == name {
			return v.Bytes, true
		}
	}
	return 0, false
}
