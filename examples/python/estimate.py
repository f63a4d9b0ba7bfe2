#!/usr/bin/env python3
"""Does a model fit? A small tour of the llmmem Python package.

Run from a build tree:   PYTHONPATH=build/bindings/python python3 examples/python/estimate.py
or after `pip install --no-build-isolation .`:   python3 examples/python/estimate.py
"""
import sys

import llmmem


def main() -> int:
    model = llmmem.Model.from_preset("llama-2-7b")
    gpu = llmmem.Hardware.from_preset("rtx-4090")
    print(model)
    print(gpu)

    # QLoRA with adapters on every linear and gradient checkpointing: any key by name.
    qlora = llmmem.Strategy(mode="qlora", lora_rank=64, lora_targets=["q", "k", "v", "o", "gate", "up", "down"],
                            sequence_length=2048, recompute="full")
    report = llmmem.estimate(model, gpu, qlora)
    print(report)
    print(f"trainable parameters: {report.trainable_parameters:,}; peak at: {report.peak_phase}")

    # Full training of the same model does not fit one card; the report says by how much.
    full = llmmem.estimate(model, gpu, llmmem.Strategy(mode="training", sequence_length=2048))
    print(f"full training: {full.total_bytes:,} bytes ({full.total_bytes / 2**30:.2f} GiB), fits: {full.fits}")

    # What fits: the largest micro-batch, the least compressed weight format, the fewest GPUs.
    big = llmmem.Model.from_preset("llama-3.1-70b")
    h100 = llmmem.Hardware.from_preset("h100-sxm-80gb")
    print(f"llama-3.1-70b on one H100 needs weights in {llmmem.solve_weight_format(big, h100)}")
    training = llmmem.Strategy(mode="training", sequence_length=4096, global_batch_size=64)
    print(f"fewest H100s to train it: {llmmem.solve_min_devices(big, h100, training)}")
    layouts = llmmem.plan(big, h100, training, devices=16)
    print(f"{len(layouts)} layouts of 16 GPUs fit; the cheapest: {layouts[0]}")

    # Serving as vLLM sizes its KV cache.
    serving = llmmem.serve(big, h100, llmmem.Strategy(tensor_parallel=4, request_tokens=8192))
    print(serving)

    # Errors name the key and the value at fault.
    try:
        llmmem.Strategy(micro_batch_size=0)
    except llmmem.OutOfRangeError as e:
        print(f"error: {e}")

    # In a notebook, `report` shows as a table (_repr_html_) and report.plot() draws it.
    if len(sys.argv) > 1:
        report.plot(path=sys.argv[1])
        print(f"wrote {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
