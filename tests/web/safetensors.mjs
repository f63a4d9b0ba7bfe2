// A sharded safetensors checkpoint for the browser tests: each shard is its header (8-byte
// little-endian length, then the JSON of dtype, shape and data_offsets per tensor) followed by a
// hole as long as its data (ftruncate: a sparse file), beside model.safetensors.index.json. The
// tensors are those of a Hugging Face LlamaForCausalLM with the config's shapes, in bf16.
import fs from 'node:fs';
import path from 'node:path';

export function llamaTensors(cfg) {
  const h = cfg.hidden_size, kv = (cfg.num_key_value_heads ?? cfg.num_attention_heads) * (cfg.head_dim ?? h / cfg.num_attention_heads);
  const t = [['model.embed_tokens.weight', [cfg.vocab_size, h]]];
  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    t.push([`${p}input_layernorm.weight`, [h]], [`${p}self_attn.q_proj.weight`, [h, h]], [`${p}self_attn.k_proj.weight`, [kv, h]],
      [`${p}self_attn.v_proj.weight`, [kv, h]], [`${p}self_attn.o_proj.weight`, [h, h]], [`${p}post_attention_layernorm.weight`, [h]],
      [`${p}mlp.gate_proj.weight`, [cfg.intermediate_size, h]], [`${p}mlp.up_proj.weight`, [cfg.intermediate_size, h]],
      [`${p}mlp.down_proj.weight`, [h, cfg.intermediate_size]]);
  }
  t.push(['model.norm.weight', [h]]);
  if (!cfg.tie_word_embeddings) t.push(['lm_head.weight', [cfg.vocab_size, h]]);
  return t;
}

// Writes config.json, `shards` shard files and the index into dir; returns {dir, files, sizes, index}.
export function writeCheckpoint(dir, configText, shards = 2) {
  fs.mkdirSync(dir, { recursive: true });
  const cfg = JSON.parse(configText);
  fs.writeFileSync(path.join(dir, 'config.json'), configText);
  const tensors = llamaTensors(cfg);
  const per = Math.ceil(tensors.length / shards);
  const weightMap = {};
  let total = 0n;
  const files = [path.join(dir, 'config.json')], sizes = {};
  for (let s = 0; s < shards; s++) {
    const name = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
    const header = { __metadata__: { format: 'pt' } };
    let offset = 0n;
    for (const [tn, shape] of tensors.slice(s * per, (s + 1) * per)) {
      const bytes = shape.reduce((a, d) => a * BigInt(d), 2n);   // bf16: 2 bytes a weight
      header[tn] = { dtype: 'BF16', shape, data_offsets: [Number(offset), Number(offset + bytes)] };
      offset += bytes;
      weightMap[tn] = name;
    }
    total += offset;
    const json = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    const file = path.join(dir, name);
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, Buffer.concat([len, json]));
    fs.ftruncateSync(fd, Number(8n + BigInt(json.length) + offset));
    fs.closeSync(fd);
    files.push(file);
    sizes[name] = { size: Number(8n + BigInt(json.length) + offset), header: 8 + json.length };
  }
  const index = path.join(dir, 'model.safetensors.index.json');
  fs.writeFileSync(index, JSON.stringify({ metadata: { total_size: Number(total) }, weight_map: weightMap }, null, 2));
  files.push(index);
  return { dir, files, sizes, index };
}
