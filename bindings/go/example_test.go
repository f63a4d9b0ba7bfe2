package llmmem_test

import (
	"errors"
	"fmt"

	"llmmem"
)

func ExampleNewModelFromPreset() {
	model, err := llmmem.NewModelFromPreset("llama-3.1-8b")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer model.Close()
	total, _ := model.TotalParameters()
	heads, _ := model.Get("num_key_value_heads")
	fmt.Println(model.Name(), total, "parameters,", heads, "KV heads")
	// Output: llama-3.1-8b 8030261248 parameters, 8 KV heads
}

func ExampleEstimate() {
	model, _ := llmmem.NewModelFromPreset("llama-3.1-8b")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	_ = strategy.Set("weight_format", "awq_int4")
	_ = strategy.Set("quant_group_size", 128)

	report, err := llmmem.Estimate(model, gpu, strategy)
	if err != nil {
		fmt.Println(err)
		return
	}
	weights, _ := report.Bytes("weights")
	fmt.Printf("AWQ weights: %d bytes (%.2f GiB), fits: %v\n", weights, float64(weights)/(1<<30), report.Fits)
	// Output: AWQ weights: 5727854592 bytes (5.33 GiB), fits: true
}

func ExampleStrategy_Set() {
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	fmt.Println(strategy.Set("mode", "qlora"))
	fmt.Println(strategy.Set("lora_targets", []string{"q", "k", "v", "o"}))
	targets, _ := strategy.Get("lora_targets")
	fmt.Println(targets)

	err := strategy.Set("micro_batch_size", 0)
	fmt.Println(err)
	fmt.Println(errors.Is(err, llmmem.ErrOutOfRange))
	// Output:
	// <nil>
	// <nil>
	// q,k,v,o
	// llmmem: micro_batch_size (0) is out of range [1, 1048576]
	// true
}

func ExampleError() {
	model, _ := llmmem.NewModelFromPreset("llama-2-7b")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	_ = model.Set("num_key_value_heads", 3)

	_, err := llmmem.Estimate(model, gpu, strategy)
	var e *llmmem.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status.String(), "|", e.Message)
	}
	fmt.Println(errors.Is(err, llmmem.ErrIncompatible))
	// Output:
	// incompatible settings | num_attention_heads (32) is not divisible by num_key_value_heads (3)
	// true
}

func ExampleSolveWeightFormat() {
	model, _ := llmmem.NewModelFromPreset("llama-3.1-70b")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()

	// The least compressed weight format that fits one 80 GB device.
	format, err := llmmem.SolveWeightFormat(model, gpu, strategy)
	fmt.Println(format, err)
	// Output: fp8_e4m3 <nil>
}

func ExampleEstimateTimeline() {
	model, _ := llmmem.NewModelFromPreset("gpt2")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	_ = strategy.Set("mode", "training")

	timeline, err := llmmem.EstimateTimeline(model, gpu, strategy)
	if err != nil {
		fmt.Println(err)
		return
	}
	report, _ := llmmem.Estimate(model, gpu, strategy)
	layers, _ := model.Get("num_hidden_layers")
	peak, _ := timeline.Peak()
	n := int(layers.(int64))
	fmt.Println(len(timeline.Points) == 2*n+6, peak.TotalBytes == report.TotalBytes)
	for _, i := range []int{0, n, n + 1, n + 2, len(timeline.Points) - 2, len(timeline.Points) - 1} {
		fmt.Print(timeline.Points[i].Label(), "; ")
	}
	fmt.Println()
	// Output:
	// true true
	// fwd 0; loss fwd; loss_done; loss bwd; opt; optimizer_done;
}
