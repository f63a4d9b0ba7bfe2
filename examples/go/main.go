// Command estimate prints whether a model fits a GPU, using the Go bindings of libllmmem.
//
//	cd examples/go
//	PKG_CONFIG_PATH=$PWD/../../build/meson-uninstalled LD_LIBRARY_PATH=$PWD/../../build/lib \
//	    GOFLAGS=-mod=mod GOPROXY=off go run . -model llama-3.1-70b -gpu h100-sxm-80gb -set weight_format=awq_int4
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"llmmem"
)

type settings []string

func (s *settings) String() string      { return strings.Join(*s, " ") }
func (s *settings) Set(kv string) error { *s = append(*s, kv); return nil }

func main() {
	model := flag.String("model", "llama-2-7b", "model preset")
	gpu := flag.String("gpu", "rtx-4090", "GPU preset")
	var sets settings
	flag.Var(&sets, "set", "KEY=VALUE for the model, the GPU or the strategy (repeatable)")
	flag.Parse()
	if len(sets) == 0 {
		sets = settings{"mode=qlora", "lora_rank=64", "lora_targets=q,k,v,o,gate,up,down",
			"sequence_length=2048", "recompute=full"}
	}
	if err := run(*model, *gpu, sets); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, llmmem.ErrNoMemory) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

func run(modelName, gpuName string, sets []string) error {
	model, err := llmmem.NewModelFromPreset(modelName)
	if err != nil {
		return err
	}
	defer model.Close()
	gpu, err := llmmem.NewHardwareFromPreset(gpuName)
	if err != nil {
		return err
	}
	defer gpu.Close()
	strategy, err := llmmem.NewStrategy()
	if err != nil {
		return err
	}
	defer strategy.Close()

	// Each KEY=VALUE goes to the object that owns the key; the library parses the text.
	for _, kv := range sets {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-set expects KEY=VALUE, got %q", kv)
		}
		k, err := llmmem.LookupKey(key)
		if err != nil {
			return err
		}
		switch k.Object {
		case "model":
			err = model.Set(key, value)
		case "hardware":
			err = gpu.Set(key, value)
		default:
			err = strategy.Set(key, value)
		}
		if err != nil {
			return err
		}
	}

	report, err := llmmem.Estimate(model, gpu, strategy)
	if err != nil {
		return err
	}
	fmt.Print(report)
	if report.TrainableParameters > 0 {
		fmt.Printf("trainable parameters: %d, peak at: %s\n", report.TrainableParameters, report.PeakPhase)
	}
	return nil
}
