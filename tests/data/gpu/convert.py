#!/usr/bin/env python3
"""Converts one PyTorch allocator trace (full_*.json.gz, see README.md) into the plain text that
tests/test_cuda_alloc.c replays, without zlib or a JSON reader on the C side.

usage: convert.py TRACE.json.gz RECORDS.jsonl OUT.trace

The output, one item per line, fields separated by single spaces, integers in decimal:
  job NAME                      the job (full-trace-records.jsonl "name")
  mode default|expandable       PYTORCH_CUDA_ALLOC_CONF: unset, or expandable_segments:True
  device_total N                bytes CUDA reports for the H100 the traces ran on
  init ADDRESS BYTES            the allocation made before recording began (the forward thread's
                                cuBLAS workspace, env_allocated) and the segment it lies in: the one
                                segment of segments_at_end no segment_alloc/segment_map event made
  peak_reserved N               torch.cuda.max_memory_reserved() measured after the trace's job
  peak_reserved_events N        the same peak from the trace's own events: reserved bytes before
                                the first event (segments_at_end less every segment event), then
                                each event, the peak reset after a segment_free or segment_unmap
                                (measure.py clean(): empty_cache, then reset_peak_memory_stats)
  peak_allocated N              torch.cuda.max_memory_allocated() measured over the same span as
                                peak_reserved (training: step 2; generate: the generate call)
  segment ADDRESS TOTAL ALLOCATED small|large     segments_at_end, in the trace's order
  events N
  ACTION ADDRESS SIZE STREAM    N lines: a alloc, r free_requested, c free_completed,
                                s segment_alloc, f segment_free, m segment_map, u segment_unmap
The events are the trace's, every one, in order; only their frames are left out."""
import gzip
import json
import sys

CODES = {"alloc": "a", "free_requested": "r", "free_completed": "c", "segment_alloc": "s",
         "segment_free": "f", "segment_map": "m", "segment_unmap": "u"}
# h100-measured.jsonl "_env" total_bytes (cudaMemGetInfo's total on the H100 of every trace)
DEVICE_TOTAL = 85017493504


def main(trace_path, records_path, out_path):
    expandable = "full_expandable_" in trace_path
    conf = "expandable_segments:True" if expandable else "default"
    with gzip.open(trace_path, "rt") as f:
        (job, data), = json.load(f).items()
    with open(records_path) as f:
        record, = [r for r in map(json.loads, f) if r["name"] == job and r["alloc_conf"] == conf]
    events, segments = data["events"], data["segments_at_end"]
    made = {e[1] for e in events if e[0] in ("segment_alloc", "segment_map")}
    init, = [s for s in segments if s[0] not in made]
    reserved = sum(s[1] for s in segments)
    for action, _, size, _, _ in events:
        reserved += {"segment_alloc": -size, "segment_map": -size, "segment_free": size,
                     "segment_unmap": size}.get(action, 0)
    peak = reserved
    for action, _, size, _, _ in events:
        if action in ("segment_alloc", "segment_map"):
            reserved += size
        elif action in ("segment_free", "segment_unmap"):
            reserved -= size
            peak = reserved
        peak = max(peak, reserved)
    lines = ["job %s" % job, "mode %s" % ("expandable" if expandable else "default"),
             "device_total %d" % DEVICE_TOTAL, "init %d %d" % (init[0], record["env_allocated"]),
             "peak_reserved %d" % record["peak_reserved"], "peak_reserved_events %d" % peak,
             "peak_allocated %d" % record["peak_alloc"]]
    lines += ["segment %d %d %d %s" % tuple(s) for s in segments]
    lines.append("events %d" % len(events))
    lines += ["%s %d %d %d" % (CODES[a], addr, size, stream) for a, addr, size, stream, _ in events]
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
