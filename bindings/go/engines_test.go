package llmmem

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// EnginesEstimate gives the tool's `serve --engine all --json` byte for byte, and each row the
// figures its JSON holds; a refusal is a row, not an error.
func TestEnginesEqualTheTool(t *testing.T) {
	m := mustModel(t, "llama-3.1-8b")
	hw := oneGPU(t, "h100-sxm-80gb")
	s := mustStrategy(t, "request_tokens", 8192)
	e, err := EnginesEstimate(m, hw, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	cli := os.Getenv("LLMMEM_CLI")
	if cli == "" {
		t.Skip("LLMMEM_CLI is not set (meson test sets it)")
	}
	out, err := exec.Command(cli, "serve", "--engine", "all", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
		"--set", "devices_per_node=1", "--length", "8192", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != e.JSON {
		t.Fatalf("the JSON differs from the tool's:\n%s\n%s", e.JSON, out)
	}
	var doc struct {
		Engines []map[string]any `json:"engines"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(e.Rows) != 5 || len(doc.Engines) != 5 {
		t.Fatalf("%d rows", len(e.Rows))
	}
	for i, row := range e.Rows {
		if row.Engine != doc.Engines[i]["engine"] || row.Status != OK || row.Message != "" {
			t.Fatalf("row %d: %+v", i, row)
		}
		for _, name := range []string{"kv_tokens", "concurrency", "weights"} {
			v, _ := row.Value(name)
			if float64(v) != doc.Engines[i][name].(float64) {
				t.Fatalf("%s %s = %d, JSON %v", row.Engine, name, v, doc.Engines[i][name])
			}
		}
		if row.Fits != doc.Engines[i]["fits"].(bool) {
			t.Fatalf("%s fits", row.Engine)
		}
	}
	next := mustModel(t, "qwen3-next-80b-a3b")
	e, err = EnginesEstimate(next, mustHardware(t, "h200"), mustStrategy(t, "tensor_parallel", 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range e.Rows {
		if row.Engine == "trtllm" && (row.Status != ErrUnsupported || !strings.Contains(row.Message, "TensorRT-LLM")) {
			t.Fatalf("trtllm row: %+v", row)
		}
	}
	if _, err := EnginesEstimate(nil, hw, s, nil); err == nil {
		t.Fatal("a nil model is an error")
	}
}
