// A GGUF header writer for the browser tests (the format of ggml-org/ggml docs/gguf.md, as
// tests/gguf_writer.h writes it): little-endian, u64 lengths, tensor data offsets padded to 32.
// writeGguf() writes the header and then extends the file to its full length without writing the
// data (a sparse file: ftruncate), so the CLI, which checks that every tensor's data lies within
// the file, reads a file of the real size while the disk holds only the header.
import fs from 'node:fs';

const T = { U32: 4, F32: 6, STRING: 8, ARRAY: 9, U64: 10 };
export const GGML = { F32: 0, Q4_K: 12, Q6_K: 14 };
// bytes per block of 256 weights (llama.cpp ggml-common.h): Q4_K 144, Q6_K 210
const BLOCK = { [GGML.Q4_K]: 144n, [GGML.Q6_K]: 210n };

class Writer {
  constructor() { this.parts = []; this.nKv = 0n; this.nTensors = 0n; this.dataEnd = 0n; }
  raw(b) { this.parts.push(Buffer.from(b)); }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.raw(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.raw(b); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.raw(b); }
  key(k, type) { this.str(k); this.u32(type); this.nKv++; }
  kvStr(k, v) { this.key(k, T.STRING); this.str(v); }
  kvU32(k, v) { this.key(k, T.U32); this.u32(v); }
  kvU64(k, v) { this.key(k, T.U64); this.u64(v); }
  kvF32(k, v) { this.key(k, T.F32); const b = Buffer.alloc(4); b.writeFloatLE(v); this.raw(b); }
  kvTokens(n) { this.key('tokenizer.ggml.tokens', T.ARRAY); this.u32(T.STRING); this.u64(n); for (let i = 0; i < n; i++) this.str(`tok${i}`); }
  tensor(name, type, dims) {
    this.str(name);
    this.u32(dims.length);
    for (const d of dims) this.u64(d);
    this.u32(type);
    this.u64(this.dataEnd);
    const elements = dims.reduce((a, d) => a * BigInt(d), 1n);
    const bytes = type === GGML.F32 ? elements * 4n : (elements / 256n) * BLOCK[type];
    this.dataEnd += ((bytes + 31n) / 32n) * 32n;
    this.nTensors++;
  }
  bytes() {
    const head = Buffer.alloc(24);
    head.write('GGUF', 0, 'latin1');
    head.writeUInt32LE(3, 4);
    head.writeBigUInt64LE(this.nTensors, 8);
    head.writeBigUInt64LE(this.nKv, 16);
    return Buffer.concat([head, ...this.parts]);
  }
}

// A Llama 3.2 1B shape (hidden 2048, 16 layers, 32 heads, 8 KV heads, MLP 8192) quantized like
// llama.cpp's Q4_K_M (attn_v and ffn_down in Q6_K on every other layer, output Q6_K, norms F32),
// with a tokenizer of `vocab` tokens so the header is larger than the page's first 1 MiB read.
export function llamaQ4KM({ vocab = 128256, layers = 16 } = {}) {
  const w = new Writer();
  const hidden = 2048, ffn = 8192, heads = 32, kvHeads = 8, headDim = 64;
  w.kvStr('general.architecture', 'llama');
  w.kvStr('general.name', 'web-test-llama-1b');
  w.kvU32('general.file_type', 15);
  w.kvU32('general.quantization_version', 2);
  w.kvU64('llama.context_length', 131072);
  w.kvU32('llama.embedding_length', hidden);
  w.kvU32('llama.block_count', layers);
  w.kvU32('llama.feed_forward_length', ffn);
  w.kvU32('llama.rope.dimension_count', headDim);
  w.kvU32('llama.attention.head_count', heads);
  w.kvU32('llama.attention.head_count_kv', kvHeads);
  w.kvF32('llama.attention.layer_norm_rms_epsilon', 1e-5);
  w.kvTokens(vocab);
  w.tensor('token_embd.weight', GGML.Q4_K, [hidden, vocab]);
  for (let l = 0; l < layers; l++) {
    const more = l % 2 === 0 ? GGML.Q6_K : GGML.Q4_K;
    w.tensor(`blk.${l}.attn_norm.weight`, GGML.F32, [hidden]);
    w.tensor(`blk.${l}.attn_q.weight`, GGML.Q4_K, [hidden, heads * headDim]);
    w.tensor(`blk.${l}.attn_k.weight`, GGML.Q4_K, [hidden, kvHeads * headDim]);
    w.tensor(`blk.${l}.attn_v.weight`, more, [hidden, kvHeads * headDim]);
    w.tensor(`blk.${l}.attn_output.weight`, GGML.Q4_K, [heads * headDim, hidden]);
    w.tensor(`blk.${l}.ffn_norm.weight`, GGML.F32, [hidden]);
    w.tensor(`blk.${l}.ffn_gate.weight`, GGML.Q4_K, [hidden, ffn]);
    w.tensor(`blk.${l}.ffn_up.weight`, GGML.Q4_K, [hidden, ffn]);
    w.tensor(`blk.${l}.ffn_down.weight`, more, [ffn, hidden]);
  }
  w.tensor('output_norm.weight', GGML.F32, [hidden]);
  w.tensor('output.weight', GGML.Q6_K, [hidden, vocab]);
  return { header: w.bytes(), dataBytes: w.dataEnd };
}

// The header, then the data section's length as a hole: returns {path, size, headerBytes}.
export function writeGguf(path, g) {
  const fd = fs.openSync(path, 'w');
  fs.writeSync(fd, g.header);
  const dataStart = ((BigInt(g.header.length) + 31n) / 32n) * 32n;
  const size = dataStart + g.dataBytes;
  fs.ftruncateSync(fd, Number(size));
  fs.closeSync(fd);
  return { path, size: Number(size), headerBytes: g.header.length };
}
