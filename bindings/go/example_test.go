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

func ExampleEstimateRuns() {
	// Llama-3.2-1B trained with transformers, 2 x 2048 tokens in pure bf16: the H100 job whose
	// reserved peak was measured at 21,361,590,272 bytes
	model, _ := llmmem.NewModelFromPreset("llama-3.2-1b")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	for _, kv := range [][2]string{{"framework", "hf_trainer"}, {"mode", "training"}, {"precision_recipe", "pure_bf16"},
		{"micro_batch_size", "2"}, {"sequence_length", "2048"}} {
		_ = strategy.Set(kv[0], kv[1])
	}

	report, _ := llmmem.EstimateRuns(model, gpu, strategy)
	runs, _ := report.Runs()
	reserved, _ := report.ReservedBytes()
	fmt.Println("runs:", runs, "reserved peak:", reserved)

	_ = gpu.Set("memory_bytes", "16GiB") // on a 16 GiB card it runs out of memory
	report, _ = llmmem.EstimateRuns(model, gpu, strategy)
	_, after, _ := report.OutOfMemory()
	expandable, _ := report.RunsExpandable()
	fmt.Println("fits:", report.Fits, "| out of memory after", after, "| with expandable segments:", expandable)

	_ = strategy.Set("tensor_parallel", 2) // not modelled: the estimate, and why
	report, err := llmmem.EstimateRuns(model, gpu, strategy)
	fmt.Println(errors.Is(err, llmmem.ErrUnsupported), report.Replayed(), report.NotReplayed() != "")
	// Output:
	// runs: true reserved peak: 21361590272
	// fits: false | out of memory after step 2, layer 15's forward | with expandable segments: false
	// true false true
}

func ExampleEstimateTimelineRuns() {
	// the measured H100 job of ExampleEstimateRuns, moment by moment
	model, _ := llmmem.NewModelFromPreset("llama-3.2-1b")
	defer model.Close()
	gpu, _ := llmmem.NewHardwareFromPreset("h100-sxm-80gb")
	defer gpu.Close()
	strategy, _ := llmmem.NewStrategy()
	defer strategy.Close()
	for _, kv := range [][2]string{{"framework", "hf_trainer"}, {"mode", "training"}, {"precision_recipe", "pure_bf16"},
		{"micro_batch_size", "2"}, {"sequence_length", "2048"}} {
		_ = strategy.Set(kv[0], kv[1])
	}

	timeline, err := llmmem.EstimateTimelineRuns(model, gpu, strategy)
	if err != nil {
		fmt.Println(err)
		return
	}
	report, _ := llmmem.EstimateRuns(model, gpu, strategy)
	outside, _ := report.Bytes("runtime_overhead")
	i, _ := timeline.ReservedPeak()
	high := timeline.Points[i]
	fmt.Println("replayed:", timeline.Replayed, "| outside the allocator:", outside)
	fmt.Println("highest reserved:", high.ReservedBytes, "=", high.ReservedBytes-outside, "+ outside, in step", high.Step)
	first, last := timeline.Points[0], timeline.Points[len(timeline.Points)-1]
	fmt.Println("first:", first.Label(), first.Step, "| last:", last.Label(), last.Step)
	// Output:
	// replayed: true | outside the allocator: 805306368
	// highest reserved: 22166896640 = 21361590272 + outside, in step 1
	// first: static 0 | last: opt 1
}
