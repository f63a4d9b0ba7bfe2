// The libllmmem web page: a job from the form, the library's answer on the page.
//
// Every number shown comes from the objects bindings/wasm/llmmem.mjs returns (the C core compiled
// to WebAssembly); this file does no arithmetic on them. It formats bytes as GiB for the eye (the
// exact integer is in each element's title and data-value) and scales bar widths for drawing.
// Every displayed value carries data-src (the command: estimate, serve, fit, plan), data-path (its
// path in that command's --json output) and data-value (the exact value), which tests/web compares
// with the CLI.
import { load, LLMMemError, INPUT_DIR } from './llmmem.mjs';

// What a person does -> the CLI command, engine and --set pairs the job carries. The keys listed
// in `fields` are shown under "What you do"; every other key stays reachable under "All keys".
//   inference (transformers)  llmmem estimate --set mode=inference
//   serving with vLLM         llmmem serve                              (engine vllm, the default)
//   llama.cpp                 llmmem serve --engine llama.cpp           fit --engine llama.cpp
//   ollama                    llmmem serve --engine ollama              fit --engine ollama
//   every engine side by side llmmem serve --engine all                 (no solver: fit takes one engine)
//   training                  llmmem estimate --set mode=training
//   LoRA                      llmmem estimate --set mode=lora
//   QLoRA                     llmmem estimate --set mode=qlora
// The solver is `llmmem fit` with the same options (and --engine for the local engines); the
// layouts are `llmmem plan --devices N` with the same options; the explanation is `llmmem
// explain` (estimate's arithmetic; it has no serve form, so the serving modes show none).
export const MODES = {
  inference: {
    label: 'Inference with transformers', command: 'estimate', sets: ['mode=inference'],
    doc: 'Hugging Face transformers generate(): weights, the KV cache of micro_batch_size x sequence_length, the forward\'s activations and logits.',
    fields: ['micro_batch_size', 'sequence_length', 'max_new_tokens', 'num_beams', 'weight_format', 'cache_implementation', 'attn_implementation'],
  },
  vllm: {
    label: 'Serving with vLLM', command: 'serve', engine: null, length: true, solve: false, // serve answers: concurrency, longest context
    doc: 'vLLM\'s memory budget (gpu_memory_utilization), its profile run and the KV blocks left: tokens and concurrent requests.',
    fields: ['tensor_parallel', 'pipeline_parallel', 'gpu_memory_utilization', 'max_model_len', 'max_num_seqs', 'kv_cache_dtype', 'weight_format', 'enable_prefix_caching'],
  },
  llamacpp: {
    label: 'Local inference with llama.cpp', command: 'serve', engine: 'llama.cpp',
    doc: 'llama.cpp\'s buffers on each GPU and the host: the layers -ngl and -ts put on each, the KV cells of -c, compute buffers.',
    fields: ['n_ctx', 'n_parallel', 'n_gpu_layers', 'cache_type_k', 'cache_type_v', 'flash_attn', 'split_mode', 'tensor_split', 'n_ubatch'],
  },
  ollama: {
    label: 'Local inference with ollama', command: 'serve', engine: 'ollama',
    doc: 'ollama\'s llama-server: num_ctx, num_parallel, num_gpu layers, and the GPUs OLLAMA_SCHED_SPREAD gives it.',
    fields: ['num_ctx', 'num_parallel', 'num_gpu', 'sched_spread', 'cache_type_k', 'cache_type_v', 'flash_attn', 'gpu_overhead_bytes'],
  },
  engines: {
    label: 'Every serving engine side by side', command: 'serve', engine: 'all', length: true, solve: false,
    doc: 'The job under vLLM, llama.cpp, ollama, SGLang and TensorRT-LLM, one row each with one GPU\'s figures; an engine that refuses the job says why in its row.',
    fields: ['tensor_parallel', 'gpu_memory_utilization', 'max_model_len', 'max_num_seqs', 'kv_cache_dtype', 'weight_format', 'n_ctx', 'n_parallel'],
  },
  training: {
    label: 'Training (full)', command: 'estimate', sets: ['mode=training'],
    doc: 'Weights, gradients, master weights, optimizer states and the activations saved for backward on the most loaded rank.',
    fields: ['micro_batch_size', 'sequence_length', 'tensor_parallel', 'pipeline_parallel', 'data_parallel', 'num_micro_batches',
      'zero_stage', 'recompute', 'optimizer', 'precision_recipe', 'flash_attention'],
  },
  lora: {
    label: 'LoRA', command: 'estimate', sets: ['mode=lora'],
    doc: 'A frozen base model and trained low-rank adapters.',
    fields: ['micro_batch_size', 'sequence_length', 'lora_rank', 'lora_targets', 'recompute', 'tensor_parallel', 'weight_format'],
  },
  qlora: {
    label: 'QLoRA', command: 'estimate', sets: ['mode=qlora'],
    doc: 'An NF4 base model (bitsandbytes) and trained adapters.',
    fields: ['micro_batch_size', 'sequence_length', 'lora_rank', 'lora_targets', 'quant_group_size', 'double_quant', 'recompute'],
  },
};
// Hardware keys shown under "Devices": the count and any memory size.
const HW_FIELDS = ['memory_bytes', 'devices_per_node', 'num_nodes'];
// Keys the mode select owns.
const OWNED = new Set(['mode', 'engine']);

// The vLLM budget's parts drawn as a bar (llmmem serve --json "budget"); an estimate's components
// and a local device's buffers come from the library (lm.components(), lm.localBuffers()).
const VLLM_BUDGET = ['weights', 'activation_peak', 'non_torch', 'cuda_graph', 'kv_cache_bytes'];
const COLORS = {
  weights: '#4e79a7', gradients: '#f28e2b', master_weights: '#e15759', optimizer_states: '#76b7b2', optimizer_temporaries: '#59a14f',
  activations: '#edc948', logits: '#b07aa1', kv_cache: '#ff9da7', comm_buffers: '#9c755f', runtime_overhead: '#bab0ac',
  activation_peak: '#edc948', non_torch: '#bab0ac', cuda_graph: '#9c755f', kv_cache_bytes: '#ff9da7',
  model: '#4e79a7', kv: '#ff9da7', recurrent: '#76b7b2', compute: '#edc948', output: '#b07aa1',
};

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};
const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};

// ---- presentation of exact values ----
const group = new Intl.NumberFormat('en-US');
const isInt = (v) => typeof v === 'bigint' || Number.isInteger(v);
export function gib(bytes) { // a label only: the exact integer travels in data-value and the title
  return (Number(bytes) / 1073741824).toFixed(2) + ' GiB';
}
// A path in the page's files (INPUT_DIR): the name of a model read from a dropped or pasted file.
const isPageFile = (v) => typeof v === 'string' && v.startsWith(`${INPUT_DIR}/`);
// One displayed value: `src` the command, `path` where it is in that command's JSON.
function val(src, path, v, kind = 'count') {
  let text, title;
  if (typeof v === 'boolean') text = v ? 'yes' : 'no';
  else if (v === null) text = 'none';
  else if (kind === 'bytes' && isInt(v)) [text, title] = [gib(v), `${group.format(v)} bytes`];
  else if (isInt(v)) text = group.format(v);
  else if (isPageFile(v)) [text, title] = [v.slice(v.lastIndexOf('/') + 1), `${v}: the file's path in the page, as in the command line`];
  else text = String(v);
  return el('span', { class: `v ${kind}`, 'data-src': src, 'data-path': path, 'data-value': String(v),
    'data-testid': `${src}:${path}`, title, text });
}
const BYTES_RE = /(bytes|weights|gradients|master_weights|optimizer_states|optimizer_temporaries|activations|logits|kv_cache|comm_buffers|runtime_overhead|^total$|activation_peak|non_torch|cuda_graphs?|shortfall|^model$|^kv$|^recurrent$|^compute$|^output$|capacity|_buffers|memory|^allocated_peak$|reserved_peak|^reserved_low$|^outside$|^request$)$/;
const kindOf = (key, path = '') => (!path.startsWith('parameters.') && BYTES_RE.test(key) ? 'bytes' : 'count');

// ---- state ----
const state = {
  source: 'preset', model: 'llama-3.1-8b', configText: '', gpu: 'h100-sxm-80gb', mode: 'inference',
  sets: {},            // key -> text, as typed
  length: '',          // serve --length
  solve: true, plan: false, planDevices: '8',
  files: null,         // {kind: 'config'|'safetensors'|'gguf', path, names: [...]} after a drop
};
let lm, KEYS, KEYMAP, GPUS;
let seq = 0;

// ---- the job ----
export function jobOf(st) {
  const m = MODES[st.mode];
  const job = { sets: [] };
  if (st.source === 'preset') job.model = st.model;
  else if (st.source === 'config') job.config = st.configPath;
  else if (st.files) {
    if (st.files.kind === 'gguf') job.gguf = st.files.path;
    else if (st.files.kind === 'config') job.config = st.files.path;
    else if (st.files.kind === 'safetensors') {
      job.safetensors = st.files.path;
      if (!st.files.hasConfig) job.model = st.model;   // a shard or index alone: checked against the preset
    }
  } else job.model = st.model;
  job.gpu = st.gpu;
  if (m.engine) job.engine = m.engine;
  if (m.length && st.length.trim() !== '') job.length = st.length.trim();
  for (const s of m.sets || []) job.sets.push(s);
  for (const name of setNames(st)) job.sets.push(`${name}=${st.sets[name].trim()}`);
  return job;
}

// The keys set, in the library's key order (model, hardware, strategy), then any name it does not
// know (from a link), so the library names it.
function setNames(st) {
  const given = (n) => st.sets[n] !== undefined && st.sets[n].trim() !== '' && !OWNED.has(n);
  return [...KEYS.map((k) => k.name).filter(given), ...Object.keys(st.sets).filter((n) => !KEYMAP.has(n) && given(n))];
}

// ---- the form ----
function keyInput(k, where) {
  let input;
  const common = { 'data-key': k.name, 'data-testid': `${where}:${k.name}`, id: `${where}-${k.name}` };
  if (k.type === 'choice' || k.type === 'bool') {
    input = el('select', common);
    input.append(el('option', { value: '', text: `default (${defaultText(k)})` }));
    for (const c of (k.type === 'bool' ? ['true', 'false'] : k.choices)) input.append(el('option', { value: c, text: c }));
  } else {
    input = el('input', { ...common, placeholder: defaultText(k), size: 14, spellcheck: 'false' });
  }
  input.value = state.sets[k.name] ?? '';
  input.addEventListener('input', () => {
    state.sets[k.name] = input.value;
    for (const other of document.querySelectorAll(`[data-key="${k.name}"]`)) if (other !== input) other.value = input.value;
    update();
  });
  const bounds = k.type === 'int' || k.type === 'real' ? `, ${k.min}..${k.max}` : '';
  const title = `${k.doc}\n(${k.object} ${k.type}${bounds}; default ${defaultText(k)}${k.choices?.length ? '; ' + k.choices.join(' ') : ''})`;
  return el('div', { class: 'row key', 'data-row': k.name },
    el('label', { for: common.id, title, text: k.name }), input,
    el('span', { class: 'err', 'data-err': `set:${k.name}`, 'data-testid': `err-set:${k.name}` }));
}

// A key's default as `llmmem keys` prints it (keys() gives it as defaultText); a hardware key
// shows the selected GPU's own value (gpus() names a choice's value).
function defaultText(k) {
  if (k.object === 'hardware' && GPUS?.has(state.gpu) && GPUS.get(state.gpu)[k.name] !== undefined)
    return String(GPUS.get(state.gpu)[k.name]);
  return k.defaultText;
}
function refreshDefaults() {
  for (const i of document.querySelectorAll('[data-key]')) {
    const k = KEYMAP.get(i.dataset.key);
    if (i.tagName === 'SELECT') i.options[0].textContent = `default (${defaultText(k)})`;
    else i.placeholder = defaultText(k);
  }
}

function renderModeFields() {
  const box = $('#mode-fields');
  box.replaceChildren();
  const m = MODES[state.mode];
  for (const name of m.fields) if (KEYMAP.has(name)) box.append(keyInput(KEYMAP.get(name), 'mode'));
  if (m.length) {
    const input = el('input', { id: 'length', 'data-testid': 'length', value: state.length, size: 14, placeholder: 'max_model_len' });
    input.addEventListener('input', () => { state.length = input.value; update(); });
    box.append(el('div', { class: 'row key' }, el('label', { for: 'length', title: 'serve --length: tokens per request for the concurrency question', text: 'request tokens' }), input));
  }
  $('#mode-doc').textContent = m.doc;
  $('#plan-row').hidden = m.command !== 'estimate';
  const shown = new Set([...m.fields, ...HW_FIELDS]);
  for (const row of document.querySelectorAll('#key-rows [data-row]')) row.classList.toggle('elsewhere', shown.has(row.dataset.row));
}

function renderKeyRows() {
  const rows = $('#key-rows');
  for (const object of ['model', 'hardware', 'strategy']) {
    const det = el('details', { 'data-object': object }, el('summary', { text: `${object} keys` }));
    for (const k of KEYS) if (k.object === object && !OWNED.has(k.name)) det.append(keyInput(k, 'all'));
    rows.append(det);
  }
  $('#nkeys').textContent = KEYS.length;
  $('#key-filter').addEventListener('input', (e) => {
    const q = e.target.value.trim().toLowerCase();
    for (const row of document.querySelectorAll('#key-rows [data-row]')) {
      const k = KEYMAP.get(row.dataset.row);
      row.classList.toggle('filtered', q !== '' && !k.name.includes(q) && !k.doc.toLowerCase().includes(q));
    }
    for (const det of document.querySelectorAll('#key-rows details')) det.open = q !== '';
  });
}

// ---- files: only the header bytes are read ----
// The readers take a file's length from the file system and check that the data its header
// describes lies within it (as llama.cpp's loader does), but read only the header. So a dropped
// file is stored as its first bytes with its real length (lm.putFile(name, bytes, size)); a read
// past the bytes stored fails (LLMMEM_ERR_IO), never sees made-up bytes.
const readBytes = new Map();   // name -> bytes read, shown beside each dropped file
// A dropped file keeps its name in the page's files (the model read from it is named by it), with
// any character putFile does not take as '_'.
const storedName = (name) => name.replace(/[^A-Za-z0-9._-]/g, '_');
async function readSafetensorsHeader(file) {
  const head = new DataView(await file.slice(0, 8).arrayBuffer());
  if (head.byteLength < 8) return new Uint8Array(await file.arrayBuffer());   // the library says what is wrong
  const n = head.getBigUint64(0, true);               // the header's length, little-endian (the format)
  const end = n > BigInt(file.size - 8) ? file.size : 8 + Number(n);
  return new Uint8Array(await file.slice(0, end).arrayBuffer());
}
// GGUF has no header length: read a growing prefix (1 MiB, doubling up to 256 MiB) while the
// library's read runs past it (LLMMEM_ERR_IO from a read beyond the bytes stored).
async function readGguf(file) {
  for (let size = 1 << 20; ; size *= 2) {
    const end = Math.min(size, file.size);
    const bytes = new Uint8Array(await file.slice(0, end).arrayBuffer());
    const path = lm.putFile(storedName(file.name), bytes, file.size);
    readBytes.set(file.name, end);
    if (end >= file.size || size >= 256 << 20) return path;
    try {
      lm.estimate({ gguf: path, gpu: state.gpu });
      return path;
    } catch (e) {
      if (!(e instanceof LLMMemError) || e.status !== 'LLMMEM_ERR_IO') return path;
    }
  }
}

async function takeFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  document.body.dataset.state = 'reading';   // until update() has run on the new files
  lm.clearFiles();
  readBytes.clear();
  state.configPathText = undefined;   // clearFiles removed the pasted config: stored again when next used
  const gguf = files.find((f) => /\.gguf$/i.test(f.name));
  const shards = files.filter((f) => /\.safetensors$/i.test(f.name));
  const index = files.find((f) => /\.safetensors\.index\.json$/i.test(f.name));
  const config = files.find((f) => /\.json$/i.test(f.name) && f !== index);
  const text = async (f) => { readBytes.set(f.name, f.size); return f.text(); };
  let info;
  if (gguf) info = { kind: 'gguf', path: await readGguf(gguf) };
  else if (shards.length || index) {
    // one folder: config.json (the name the library looks for), the index, header-only shards; the
    // job gives the index, else the only shard (the library reads the config.json beside it and
    // names the model by the file), else the folder (the library says which file it lacks)
    if (config) lm.putFile('ckpt/config.json', await text(config));
    const stored = index ? [lm.putFile(`ckpt/${storedName(index.name)}`, await text(index))] : [];
    for (const s of shards) {
      const head = await readSafetensorsHeader(s);
      readBytes.set(s.name, head.length);
      stored.push(lm.putFile(`ckpt/${storedName(s.name)}`, head, s.size));
    }
    info = { kind: 'safetensors', hasConfig: !!config, path: index || shards.length === 1 ? stored[0] : stored[0].slice(0, stored[0].lastIndexOf('/')) };
  } else if (config) info = { kind: 'config', path: lm.putFile(storedName(config.name), await text(config)) };
  else { showErrors([{ field: 'config', message: `not a config.json, .safetensors, index or .gguf: ${files.map((f) => f.name).join(', ')}` }]); return; }
  const used = files.filter((f) => readBytes.has(f.name));
  info.names = used.map((f) => `${f.name}: ${group.format(f.size)} bytes, ${group.format(readBytes.get(f.name))} read`);
  state.files = info;
  state.source = 'files';
  $('#file-list').replaceChildren(...used.map((f, i) => el('li', { text: info.names[i], 'data-name': f.name, 'data-size': String(f.size), 'data-read': String(readBytes.get(f.name)) })));
  syncForm();
  update();
}
function setupDrop() {
  const drop = $('#drop');
  for (const ev of ['dragenter', 'dragover']) drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); takeFiles(e.dataTransfer.files); });
  $('#files').addEventListener('change', (e) => takeFiles(e.target.files));
}

// ---- errors ----
function clearErrors() {
  for (const e of document.querySelectorAll('[data-err]')) { e.textContent = ''; e.classList.remove('on'); }
  for (const e of document.querySelectorAll('.bad')) e.classList.remove('bad');
}
function showErrors(errs) {
  for (let { field, message } of errs) {
    if (!field || field === 'job') {  // a combination at fault (tensor_parallel=3 on 32 heads): beside the keys it names
      const named = setNames(state).filter((n) => new RegExp(`\\b${n}\\b`).test(message));
      if (named.length) { for (const n of named.slice(0, -1)) showErrors([{ field: `set:${n}`, message }]); field = `set:${named.at(-1)}`; }
    }
    // the field's message spot where the field is on screen (an empty spot itself is not displayed)
    let spot = [...document.querySelectorAll(`[data-err="${CSS.escape(field || 'job')}"]`)].find((s) => s.parentElement.offsetParent !== null);
    if (!spot && field?.startsWith('set:')) {       // a key under "All keys": open its group
      const row = document.querySelector(`#key-rows [data-row="${CSS.escape(field.slice(4))}"]`);
      if (row) { row.closest('details').open = true; row.classList.remove('filtered'); spot = row.querySelector('[data-err]'); }
    }
    if (!spot) spot = document.querySelector('[data-err="job"]');
    spot.textContent = message;
    spot.classList.add('on');
    spot.closest('.row')?.classList.add('bad');
  }
}

// ---- the results ----
function flatten(obj, prefix, out) {
  for (const [k, v] of Object.entries(obj)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object') flatten(v, p, out);
    else out.push([p, k, v]);
  }
  return out;
}
function table(src, obj, prefix, skip = []) {
  const t = el('table', { class: 'kv' });
  for (const [p, k, v] of flatten(obj, prefix, [])) {
    if (skip.some((s) => p === s || p.startsWith(s + '.'))) continue;
    t.append(el('tr', {}, el('th', { text: p }), el('td', {}, val(src, p, v, kindOf(k, p)))));
  }
  return t;
}
// One stacked bar: parts [{name, path, bytes}] against a capacity (both exact, from the library).
function bar(src, label, parts, total, capacity, extra = []) {
  const scale = Number(capacity) > 0 ? Number(capacity) : Math.max(1, ...parts.map((p) => Number(p.bytes))) ;
  const track = el('div', { class: 'track' });
  for (const p of parts) {
    if (Number(p.bytes) === 0) continue;
    const seg = el('div', { class: 'seg', 'data-component': p.name, style: `width:${Math.min(100, (100 * Number(p.bytes)) / scale)}%;background:${COLORS[p.name] || '#999'}`,
      title: `${p.name}: ${gib(p.bytes)} (${group.format(p.bytes)} bytes)`, 'data-src': src, 'data-path': p.path,
      'data-value': String(p.bytes), 'data-testid': `bar:${src}:${p.path}` });
    track.append(seg);
  }
  return el('div', { class: 'bar' }, el('div', { class: 'bar-label', text: label }), track,
    el('div', { class: 'bar-total' }, total, capacity !== null ? ' of ' : '', capacity !== null ? capacity : '', ...extra));
}
const chip = (n) => el('span', { class: 'key-chip', 'data-component': n }, el('i', { style: `background:${COLORS[n] || '#999'}` }), n);
function legend(names) {
  $('#legend').replaceChildren(...names.map(chip));
}
function verdict(src, path, fits, what) {
  $('#verdict').replaceChildren(el('p', { class: fits ? 'fits yes' : 'fits no' },
    el('b', { text: fits ? 'Fits' : 'Does not fit' }), ` ${what} `, val(src, path, fits, 'flag')));
}

// Whether the job runs, as PyTorch's CUDA caching allocator serves it (estimate's "allocator": the
// job replayed where the allocation tape runs it), beside the verdict; otherwise why it was not.
function renderAllocator(r) {
  const a = r.allocator, box = $('#allocator');
  if (!a) {
    box.replaceChildren(...(lm.notReplayed ? [el('p', { class: 'hint', 'data-testid': 'not-replayed', text: `not replayed: ${lm.notReplayed}` })] : []));
    return;
  }
  const v = (path, x, kind = 'bytes') => val('estimate', `allocator.${path}`, x, kind);
  const oom = a.out_of_memory;
  box.replaceChildren(el('p', {},
    'PyTorch\'s CUDA caching allocator, the job replayed', ...(String(a.decode_stride) !== '1' ? [' (decode steps every ', v('decode_stride', a.decode_stride, 'count'), ' tokens)'] : []),
    ': allocated peak ', v('allocated_peak', a.allocated_peak), ', reserved peak ', v('reserved_peak', a.reserved_peak),
    ' (', v('free_at_reserved_peak', a.free_at_reserved_peak), ' of it in free blocks',
    ...(String(a.reserved_low) !== String(a.reserved_peak) ? ['; ', v('reserved_low', a.reserved_low), ' with the segments placed upward'] : []),
    '), outside the allocator ', v('outside', a.outside), ', device total ', val('estimate', 'device_total_bytes', r.device_total_bytes, 'bytes'), '.'),
  el('p', { class: a.runs ? 'runs-yes' : 'runs-no', 'data-testid': 'runs' },
    'Runs: ', v('runs', a.runs, 'flag'), a.runs ? ', the reserved peak and the memory outside the allocator within the device\'s total.' : '',
    ...(oom ? [', out of memory: a request of ', v('out_of_memory.request', oom.request), ' after ', v('out_of_memory.after', oom.after, 'moment'), '.'] : []),
    ...(a.runs_with_expandable_segments != null ? [' With expandable_segments:True it runs: ', v('runs_with_expandable_segments', a.runs_with_expandable_segments, 'flag'), '.'] : [])));
}

const componentsOf = (r) => lm.components().filter((c) => c in r.per_device);
function renderEstimate(r) {
  verdict('estimate', 'fits', r.fits, r.allocator ? 'as PyTorch\'s CUDA caching allocator serves it:' : 'on the most loaded device:');
  renderAllocator(r);
  $('#summary').replaceChildren(el('p', {},
    'per device ', val('estimate', 'per_device.total', r.per_device.total, 'bytes'), ' of ', val('estimate', 'capacity_bytes', r.capacity_bytes, 'bytes'),
    ' usable (', val('estimate', 'memory_bytes', r.memory_bytes, 'bytes'), ' memory); ',
    val('estimate', 'parameters.total', r.parameters.total), ' parameters (', val('estimate', 'parameters.active', r.parameters.active), ' active)'));
  const comps = componentsOf(r);
  const bars = [bar('estimate', `most loaded device (stage ${r.most_loaded_stage})`, comps.map((c) => ({ name: c, path: `per_device.${c}`, bytes: r.per_device[c] })),
    val('estimate', 'per_device.total', r.per_device.total, 'bytes'), val('estimate', 'capacity_bytes', r.capacity_bytes, 'bytes'))];
  if (r.stages && r.stages.length > 1) {
    r.stages.forEach((s, i) => bars.push(bar('estimate', `stage ${i}: ${s.layers} layers from layer ${s.first_layer}`,
      comps.map((c) => ({ name: c, path: `stages.${i}.${c}`, bytes: s[c] })),
      val('estimate', `stages.${i}.total`, s.total, 'bytes'), val('estimate', 'capacity_bytes', r.capacity_bytes, 'bytes'))));
  }
  $('#bars').replaceChildren(...bars);
  legend(comps);
  renderTimeline(r.timeline, comps, r.allocator ? {} : { why: lm.notReplayed });   // a replayed job: update() redraws it from lm.timelineRuns
  $('#details').replaceChildren(table('estimate', r, '', ['timeline']));
}
function renderServe(r) {
  verdict('serve', 'kv.fits', r.kv.fits, 'vLLM\'s KV cache holds at least one request:');
  $('#allocator').replaceChildren();
  $('#summary').replaceChildren(el('p', {},
    'KV cache ', val('serve', 'budget.kv_cache_bytes', r.budget.kv_cache_bytes, 'bytes'), ' in ', val('serve', 'kv.num_blocks', r.kv.num_blocks),
    ' blocks: ', val('serve', 'kv.tokens', r.kv.tokens), ' tokens; ', val('serve', 'kv.max_concurrency', r.kv.max_concurrency),
    ' concurrent requests of ', val('serve', 'kv.request_tokens', r.kv.request_tokens), ' tokens (vLLM prints ',
    val('serve', 'kv.vllm_concurrency', r.kv.vllm_concurrency), 'x); longest context ', val('serve', 'kv.max_model_len', r.kv.max_model_len), ' tokens'));
  const comps = VLLM_BUDGET;
  $('#bars').replaceChildren(bar('serve', `each GPU (tensor ${r.tensor_parallel}, pipeline ${r.pipeline_parallel})`,
    comps.map((c) => ({ name: c, path: `budget.${c}`, bytes: r.budget[c] })),
    val('serve', 'budget.requested_bytes', r.budget.requested_bytes, 'bytes'), val('serve', 'budget.memory_bytes', r.budget.memory_bytes, 'bytes'),
    [' (gpu_memory_utilization\'s share)']));
  legend(comps);
  renderTimeline(null);
  $('#details').replaceChildren(table('serve', r, ''));
}
function renderLocal(r) {
  verdict('serve', 'fits', r.fits, `${r.engine}'s buffers fit every device:`);
  $('#allocator').replaceChildren();
  $('#summary').replaceChildren(el('p', {},
    val('serve', 'n_gpu_layers', r.n_gpu_layers), ' layers offloaded (n_gpu_layers; the output layer counts as one) of ', val('serve', 'n_layer', r.n_layer),
    ' repeating layers to ', val('serve', 'gpus', r.gpus),
    ' GPU(s): ', val('serve', 'gpu_bytes', r.gpu_bytes, 'bytes'), ' on GPUs, ', val('serve', 'host_bytes', r.host_bytes, 'bytes'),
    ' on the host; KV cache ', val('serve', 'kv_bytes', r.kv_bytes, 'bytes'), ' for ', val('serve', 'n_ctx', r.n_ctx), ' cells; shortfall ',
    val('serve', 'shortfall', r.shortfall, 'bytes')));
  const comps = lm.localBuffers();
  // the host has no capacity in the model (capacity 0): its bar is drawn to its own total
  $('#bars').replaceChildren(...r.devices.map((d, i) => bar('serve', `${d.name}${d.host ? ' (host, unchecked)' : ''}: ${d.layers} layers`,
    comps.map((c) => ({ name: c, path: `devices.${i}.${c}`, bytes: d[c] })),
    val('serve', `devices.${i}.total`, d.total, 'bytes'), d.host ? null : val('serve', `devices.${i}.capacity`, d.capacity, 'bytes'))));
  legend(comps);
  renderTimeline(null);
  $('#details').replaceChildren(table('serve', r, ''));
}
// Every engine side by side (serve --engine all): one row per engine with one GPU's figures, in the
// library's row order; a refused engine's row holds its message instead.
const ENGINE_COLS = [['weights', 'weights', 'bytes'], ['activations', 'activations / compute', 'bytes'], ['cuda_graphs', 'CUDA graphs', 'bytes'],
  ['kv_bytes', 'KV cache', 'bytes'], ['kv_tokens', 'KV tokens', 'count'], ['concurrency', 'requests at once', 'count'], ['fits', 'fits', 'flag']];
function renderEngines(r) {
  $('#verdict').replaceChildren();
  $('#allocator').replaceChildren();
  $('#summary').replaceChildren(el('p', {}, 'One GPU under each engine (llama.cpp and ollama: the most loaded GPU, activations its compute buffer, ',
    'KV tokens its n_ctx), requests of ', val('serve', 'engines.0.request_tokens', r.engines[0].request_tokens), ' tokens.'));
  const t = el('table', { class: 'grid engines' }, el('tr', {}, el('th', { text: 'engine' }), ...ENGINE_COLS.map(([k, label]) => el('th', { title: k, text: label }))));
  r.engines.forEach((e, i) => {
    const name = el('td', {}, val('serve', `engines.${i}.engine`, e.engine, 'name'));
    t.append(e.status === 0
      ? el('tr', { 'data-engine': e.engine }, name, ...ENGINE_COLS.map(([k, , kind]) => el('td', {}, val('serve', `engines.${i}.${k}`, e[k], kind))))
      : el('tr', { 'data-engine': e.engine, class: 'refused' }, name,
        el('td', { colspan: String(ENGINE_COLS.length) }, 'refused: ', val('serve', `engines.${i}.message`, e.message, 'message'))));
  });
  $('#engines').replaceChildren(el('div', { class: 'scroll' }, t));
  $('#bars').replaceChildren();
  legend([]);
  renderTimeline(null);
  $('#details').replaceChildren(table('serve', r, ''));
}
// The step timeline: a stacked bar per moment whose parts are the components in the per-device
// bars' colours (a colour is one component wherever it appears), the peak marked above its bar, and
// the phases named under the moments they span; its legend names each part drawn. `how`:
//   {replay: report}  t is the job as PyTorch's CUDA caching allocator serves it (lm.timelineRuns,
//                     where the report has "allocator"): the reserved bytes outline the allocated
//                     ones, against the device's total, the steps' boundaries drawn and, when it
//                     does not run, the moment it runs out of memory (after the replay's last point)
//   {why: text}       the estimate's timeline, and why the allocator's replay is not drawn
// The new series take colours of their own (style.css, #timeline-box), none a component's.
function renderTimeline(t, comps = [], how = {}) {
  const box = $('#timeline');
  $('#timeline-box').hidden = !t;
  if (!t) { box.replaceChildren(); $('#timeline-legend').replaceChildren(); return; }
  const r = how.replay, oom = r && !r.allocator.runs ? r.allocator.out_of_memory : null;
  const [src, pre] = r ? ['timeline', ''] : ['estimate', 'timeline.'];
  for (const s of document.querySelectorAll('#timeline-box [data-timeline]')) s.hidden = s.dataset.timeline !== (r ? 'replay' : 'estimate');
  const pts = t.points;
  const slots = pts.length + (oom ? 1 : 0);   // the moment it runs out of memory: a slot after the last
  const w = 640, top = r ? 26 : 12, h = 140, bw = w / Math.max(1, slots), width = Math.max(0.5, bw - (bw > 3 ? 1 : 0));
  const max = Math.max(1, ...pts.map((p) => Number(p.total)), ...(r ? [...pts.map((p) => Number(p.reserved)), Number(r.device_total_bytes)] : []));
  const yOf = (bytes) => top + h - (h * Number(bytes)) / max;
  const drawn = comps.filter((c) => pts.some((p) => Number(p.bytes[c] ?? 0) > 0));
  // the replay's steps, named as the library's messages name them (its out-of-memory moment): a
  // training step by its place (step 1, step 2), a generate step by its token (the prefill, decode step N)
  const starts = r ? pts.map((p, i) => i).filter((i) => i === 0 || pts[i].step !== pts[i - 1].step) : [];
  const generate = pts.some((p) => p.phase === 'prefill');
  const stepName = new Map(starts.map((i, k) => [String(pts[i].step),
    !generate ? `step ${k + 1}` : String(pts[i].step) === '0' ? 'the prefill' : `decode step ${pts[i].step}`]));
  const s = svg('svg', { viewBox: `0 0 ${w} ${top + h + 30}`, width: '100%', role: 'img',
    'aria-label': r ? 'bytes allocated by component and bytes reserved over the steps replayed' : 'bytes held over the step, by component' });
  const title = (e, text) => { const tt = svg('title'); tt.textContent = text; e.append(tt); return e; };
  pts.forEach((p, i) => {
    let y = top + h;
    for (const c of drawn) {
      if (Number(p.bytes[c] ?? 0) === 0) continue;
      const ht = (h * Number(p.bytes[c])) / max;
      y -= ht;
      s.append(svg('rect', { x: i * bw, y, width, height: ht, fill: COLORS[c] || '#999', class: 'tl-seg', 'data-component': c,
        'data-src': src, 'data-path': `${pre}points.${i}.bytes.${c}`, 'data-value': String(p.bytes[c]) }));
    }
    // the whole moment over its parts: its tooltip and its total
    s.append(title(svg('rect', { x: i * bw, y: top, width, height: h, class: 'tl-hit', 'data-src': src, 'data-path': `${pre}points.${i}.total`,
      'data-value': String(p.total), 'data-testid': `${src}:${pre}points.${i}.total` }),
    `${r ? `${stepName.get(String(p.step))}, ` : ''}${p.phase}${p.layer >= 0 ? ' layer ' + p.layer : ''}: ${r ? 'allocated ' : ''}${gib(p.total)} (${group.format(p.total)} bytes)`
      + `${r ? `, reserved ${gib(p.reserved)} (${group.format(p.reserved)} bytes)` : ''}${i === t.peak_index ? ' - the peak' : ''}`));
  });
  let highest = 0;
  if (r) {
    // the steps' boundaries, each named where the name fits before the next
    starts.forEach((i, k) => {
      const x = i * bw, g = svg('g', { class: 'tl-step', 'data-src': 'timeline', 'data-path': `points.${i}.step`, 'data-value': String(pts[i].step) });
      if (i > 0) g.append(svg('path', { d: `M${x},${top - 12} V${top + h}` }));
      const name = stepName.get(String(pts[i].step));
      if (((starts[k + 1] ?? slots) - i) * bw >= 6 * name.length + 6) g.append(Object.assign(svg('text', { x: x + 3, y: 9 }), { textContent: name }));
      s.append(title(g, `${name} from moment ${i}`));
    });
    // the device's total, and the reserved bytes: a step line over the bars, one piece per moment
    s.append(title(svg('path', { d: `M0,${yOf(r.device_total_bytes)} H${w}`, class: 'tl-device', 'data-testid': 'timeline-device',
      'data-src': 'estimate', 'data-path': 'device_total_bytes', 'data-value': String(r.device_total_bytes) }),
    `the device's total: ${gib(r.device_total_bytes)} (${group.format(r.device_total_bytes)} bytes)`));
    pts.forEach((p, i) => {
      if (Number(p.reserved) > Number(pts[highest].reserved)) highest = i;
      s.append(title(svg('path', { d: `M${i * bw},${yOf(i ? pts[i - 1].reserved : p.reserved)} V${yOf(p.reserved)} H${(i + 1) * bw}`, class: 'tl-reserved',
        'data-src': 'timeline', 'data-path': `points.${i}.reserved`, 'data-value': String(p.reserved) }),
      `reserved after moment ${i} (${stepName.get(String(p.step))}, ${p.phase}${p.layer >= 0 ? ' layer ' + p.layer : ''}): ${gib(p.reserved)} (${group.format(p.reserved)} bytes)`));
    });
    if (oom) {
      const x = (pts.length + 0.5) * bw, g = svg('g', { class: 'tl-oom', 'data-testid': 'timeline-oom', 'data-index': pts.length - 1,
        'data-src': 'estimate', 'data-path': 'allocator.out_of_memory.after', 'data-value': String(oom.after) });
      g.append(svg('path', { d: `M${x},${top} V${top + h} M${x - 5},${top - 10} L${x + 5},${top} M${x + 5},${top - 10} L${x - 5},${top}` }));
      s.append(title(g, `out of memory after ${oom.after}: a request of ${gib(oom.request)} (${group.format(oom.request)} bytes) the allocator cannot serve`));
    }
  }
  const px = (t.peak_index + 0.5) * bw;
  s.append(svg('path', { d: `M${px - 5},${top - 11} L${px + 5},${top - 11} L${px},${top - 2} Z`, class: 'tl-peak', 'data-testid': 'timeline-peak', 'data-index': t.peak_index }));
  // the phases: a bracket under each run of moments of one phase, named where the name fits
  const runs = [];
  pts.forEach((p, i) => (runs.at(-1)?.phase === p.phase ? runs.at(-1).end = i : runs.push({ phase: p.phase, start: i, end: i })));
  for (const ph of runs) {
    const x0 = ph.start * bw, x1 = (ph.end + 1) * bw - (bw > 3 ? 1 : 0), g = svg('g', { class: 'tl-phase', 'data-phase': ph.phase });
    g.append(svg('path', { d: `M${x0},${top + h + 3} V${top + h + 7} H${x1} V${top + h + 3}` }));
    title(g, `${ph.phase}: moments ${ph.start} to ${ph.end}`);
    if (x1 - x0 >= 7 * ph.phase.length) g.append(Object.assign(svg('text', { x: (x0 + x1) / 2, y: top + h + 20, 'text-anchor': 'middle' }), { textContent: ph.phase }));
    s.append(g);
  }
  const peak = [r ? 'allocated peak ' : 'peak ', val(src, `${pre}points.${t.peak_index}.total`, pts[t.peak_index]?.total ?? 0, 'bytes'),
    ' at moment ', val(src, `${pre}peak_index`, t.peak_index), ' of ', String(pts.length)];
  box.replaceChildren(s, r
    ? el('p', { class: 'hint' }, ...peak, '; highest reserved ', val('timeline', `points.${highest}.reserved`, pts[highest]?.reserved ?? 0, 'bytes'),
      ' at moment ', String(highest), '; the device\'s total ', val('estimate', 'device_total_bytes', r.device_total_bytes, 'bytes'),
      ...(oom ? ['; out of memory after ', val('estimate', 'allocator.out_of_memory.after', oom.after, 'moment')] : []))
    : el('p', { class: 'hint' }, ...peak, ', stage ', val('estimate', 'timeline.stage', t.stage)),
  ...(how.why ? [el('p', { class: 'hint', 'data-testid': 'timeline-not-replayed', text: `the allocator's replay is not drawn: ${how.why}` })] : []));
  const series = (name, label) => el('span', { class: 'key-chip', 'data-series': name }, el('i'), label);
  $('#timeline-legend').replaceChildren(...drawn.map(chip),
    ...(r ? [series('reserved', 'reserved (the allocator\'s segments and the memory outside it)'), series('device', 'the device\'s total'),
      series('step', 'a step\'s start'), ...(oom ? [series('oom', 'out of memory')] : [])] : []),
    el('span', { class: 'key-chip' }, el('b', { class: 'peak-mark', text: '\u25BC' }), r ? 'the peak allocated' : 'the peak'),
    el('span', { class: 'key-chip phases', 'data-testid': 'timeline-phases' }, `phases, named under the bars: ${[...new Set(pts.map((p) => p.phase))].join(', ')}`));
}
const FIT_LABELS = {
  max_gpu_layers: 'most GPU layers', max_context: 'longest context', max_parallel: 'most parallel sequences',
  micro_batch_size: 'largest micro-batch', sequence_length: 'longest sequence', weight_format: 'least compressed weight format',
  min_devices: 'fewest devices', fit_margin_bytes: 'margin kept free', replayed: 'the answers run as the caching allocator serves them',
  'expandable_segments.micro_batch_size': 'largest micro-batch with expandable_segments:True',
  'expandable_segments.sequence_length': 'longest sequence with expandable_segments:True',
};
function renderFit(f) {
  const t = el('table', { class: 'kv' });
  for (const [p, k, v] of flatten(f, '', [])) {
    if (['model', 'hardware', 'engine'].includes(p)) continue;
    t.append(el('tr', {}, el('th', { text: FIT_LABELS[p] ? `${FIT_LABELS[p]} (${p})` : p }), el('td', {}, val('fit', p, v, kindOf(k)))));
  }
  $('#fit').replaceChildren(t);
}
function renderPlan(p) {
  const cols = p.layouts.length ? Object.keys(p.layouts[0]) : [];
  // a header may break after '_' (a narrow column); the table scrolls inside its box when the page is narrower still
  const t = el('table', { class: 'grid' }, el('tr', {}, ...cols.map((c) => el('th', { title: c, text: c.replace(/_parallel$/, '').replaceAll('_', '_\u200b') }))));
  p.layouts.forEach((l, i) => t.append(el('tr', {}, ...cols.map((c) => el('td', {}, val('plan', `layouts.${i}.${c}`, l[c], c === 'bytes' ? 'bytes' : 'count'))))));
  $('#plan-out').replaceChildren(el('p', {}, val('plan', 'fitting', p.fitting), ' of ', val('plan', 'candidates', p.candidates), ' layouts of ',
    val('plan', 'devices', p.devices), ' devices fit; the cheapest:'), el('div', { class: 'scroll', 'data-testid': 'plan-scroll' }, t));
}

// ---- compute on every input ----
// How long each call takes warm: the first call of each command after loading is far slower (the
// browser compiles and optimizes the code it reaches: tens to hundreds of milliseconds, where a warm
// estimate takes a fraction of one), so it runs once untimed and its time is kept apart (the
// header's tooltip). Each call is then repeated within about 2 ms, as the clock is coarse.
const firstMs = {};          // command -> ms of its first call after loading
function timed(name, fn) {
  let r;
  if (!(name in firstMs)) {
    const t = performance.now();
    r = fn();
    firstMs[name] = performance.now() - t;
  }
  let n = 0;
  const t0 = performance.now();
  let t1 = t0;
  do { r = fn(); n++; t1 = performance.now(); } while (t1 - t0 < 2 && n < 50);
  return [r, (t1 - t0) / n, n];
}
function showTimes(times) {
  const first = Object.entries(firstMs).map(([k, ms]) => `${k} ${ms.toFixed(1)} ms`).join(', ');
  $('#timing').title = `Each time is the average of a call's runs after its first (${times.map(({ name, runs }) => `${name} ${runs}`).join(', ')} runs); `
    + `the first call of each after loading, which also compiles the code, took ${first}.`;
  $('#timing').replaceChildren(el('span', { class: 'lbl', text: 'warm call times: ' }), ...times.flatMap(({ name, ms, runs }, i) => [i ? ' \u00b7 ' : '',
    el('span', { 'data-call': name, 'data-ms': String(ms), 'data-runs': String(runs), 'data-first-ms': String(firstMs[name]),
      text: `${name} ${ms.toFixed(2)} ms` })]));
}
function update() {
  seq++;
  clearErrors();
  const st = state, m = MODES[st.mode];
  const errs = [], times = [];
  let job;
  try {
    // a pasted config in a folder of its own, apart from any dropped file's name
    if (st.source === 'config') {
      if (st.configText !== st.configPathText) { st.configPath = lm.putFile('pasted/config.json', st.configText); st.configPathText = st.configText; }
    }
    job = jobOf(st);
    $('#argv').textContent = 'llmmem ' + lm.argv(m.command, job).map(shellQuote).join(' ');
  } catch (e) { errs.push(e); }
  const run = (name, fn, render) => {
    try {
      const [r, ms, runs] = timed(name, fn);
      times.push({ name, ms, runs });
      render(r);
      return true;
    } catch (e) { errs.push(e); return false; }
  };
  let ok = errs.length === 0;
  let report = null;
  if (ok) {
    if (m.command === 'estimate') ok = run('estimate', () => lm.estimate(job), (r) => { report = r; renderEstimate(r); });
    else ok = run('serve', () => lm.serve(job), m.engine === 'all' ? renderEngines : m.engine ? renderLocal : renderServe);
    // what the CLI prints on stderr as warnings (a checkpoint that does not match its model)
    $('#warnings').replaceChildren(...(lm.warnings || []).map((w) => el('p', { class: 'warn', 'data-testid': 'warning', text: `warning: ${w}` })));
  }
  $('#engines-box').hidden = m.engine !== 'all';
  if (m.engine !== 'all') $('#engines').replaceChildren();
  // the timeline as the caching allocator serves the job, where the report has its replay (as the allocator panel decides)
  if (ok && report?.allocator) ok = run('timeline', () => lm.timelineRuns(job), (t) => renderTimeline(t, componentsOf(report), { replay: report }));
  // the solver, the layouts and the explanation each on their own: one failing keeps the others
  // `llmmem fit` takes no --safetensors: the solver answers for presets, config.json and GGUF
  const solve = st.solve && m.solve !== false && !(job && job.safetensors);
  $('#fit-box').hidden = !solve;
  if (!solve) $('#fit').replaceChildren();
  $('#fit-note').hidden = !(st.solve && job && job.safetensors);
  $('#fit-box').classList.toggle('stale', ok && solve && !run('fit', () => lm.fit(job), renderFit));
  $('#plan-box').hidden = !(st.plan && m.command === 'estimate');
  if ($('#plan-box').hidden) $('#plan-out').replaceChildren();
  $('#plan-box').classList.toggle('stale', ok && st.plan && m.command === 'estimate'
    && !run('plan', () => lm.plan({ ...job, devices: st.planDevices.trim(), top: 10 }), renderPlan));
  $('#explain-box').hidden = m.command !== 'estimate';
  if ($('#explain-box').hidden) $('#explain').textContent = '';
  $('#explain-box').classList.toggle('stale', ok && m.command === 'estimate' && !run('explain', () => lm.explain(job), (t) => { $('#explain').textContent = t; }));
  const current = ok;                   // the main answer is this job's
  ok = errs.length === 0;
  if (ok) showTimes(times);
  // a box with nothing in it (no good answer yet) shows no heading either
  for (const box of document.querySelectorAll('#results > [id$="-box"]'))
    box.classList.toggle('empty', !box.querySelector('[data-path]') && !box.querySelector('pre')?.textContent);
  showErrors(errs.map((e) => (e instanceof LLMMemError ? { field: e.field, message: e.message }
    : { field: 'job', message: `${e.name || 'Error'}: ${e.message}` })));
  $('#results').classList.toggle('stale', !current);
  $('#stale').hidden = current;
  $('#stale').textContent = $('#results [data-path]') ? 'The input above has an error: the results below are the last good ones.'
    : 'The input above has an error: there is no result to show yet.';
  document.body.dataset.state = ok ? 'ok' : 'error';
  document.body.dataset.seq = seq;
  writeLink();
}
function shellQuote(a) { return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`; }

// ---- the link: everything but dropped files ----
function writeLink() {
  const q = new URLSearchParams();
  if (state.source === 'config') q.set('config', state.configText);
  else q.set('model', state.model);
  q.set('gpu', state.gpu);
  q.set('mode', state.mode);
  for (const name of setNames(state)) q.append('set', `${name}=${state.sets[name].trim()}`);
  if (state.length.trim()) q.set('length', state.length.trim());
  if (!state.solve) q.set('solve', '0');
  if (state.plan) q.set('plan', state.planDevices.trim());
  const url = `${location.pathname}#${q}`;
  $('#link').href = url;
  history.replaceState(null, '', url);
  $('#link-note').textContent = state.source === 'files'
    ? 'Dropped files cannot go into a link: it restores the rest of the job with the preset model. Paste a config.json instead to share it.'
    : 'Opening it restores this job.';
}
function readLink() {
  const q = new URLSearchParams(location.hash.slice(1));
  if (q.has('config')) { state.source = 'config'; state.configText = q.get('config'); }
  if (q.has('model')) { state.source = 'preset'; state.model = q.get('model'); }
  if (q.has('gpu')) state.gpu = q.get('gpu');
  if (q.has('mode') && MODES[q.get('mode')]) state.mode = q.get('mode');
  for (const s of q.getAll('set')) { const i = s.indexOf('='); if (i > 0) state.sets[s.slice(0, i)] = s.slice(i + 1); }
  if (q.has('length')) state.length = q.get('length');
  if (q.get('solve') === '0') state.solve = false;
  if (q.has('plan')) { state.plan = true; state.planDevices = q.get('plan'); }
}
function syncForm() {
  for (const r of document.querySelectorAll('input[name=source]')) r.checked = r.value === state.source;
  $('#model').value = state.model;
  $('#config-text').value = state.configText;
  $('#gpu').value = state.gpu;
  $('#mode').value = state.mode;
  $('#solve').checked = state.solve;
  $('#plan').checked = state.plan;
  $('#plan-devices').value = state.planDevices;
  renderModeFields();
  for (const i of document.querySelectorAll('[data-key]')) i.value = state.sets[i.dataset.key] ?? '';
  refreshDefaults();
}

async function main() {
  try {
    lm = await load();
  } catch (e) {
    $('#fatal').textContent = `The WebAssembly core did not load: ${e.message}`;
    $('#fatal').hidden = false;
    document.body.dataset.state = 'fatal';
    return;
  }
  KEYS = lm.keys();
  KEYMAP = new Map(KEYS.map((k) => [k.name, k]));
  $('#version').textContent = `libllmmem ${lm.version} (WebAssembly)`;
  GPUS = new Map(lm.gpus().map((g) => [g.name, g]));
  $('#model').replaceChildren(...lm.models().map((n) => el('option', { value: n, text: n })));
  $('#gpu').replaceChildren(...lm.gpus().map((g) => el('option', { value: g.name, text: `${g.name} (${gib(g.memory_bytes)})`,
    title: `${group.format(BigInt(g.memory_bytes))} bytes`, 'data-value': String(g.memory_bytes) })));
  $('#mode').replaceChildren(...Object.entries(MODES).map(([k, m]) => el('option', { value: k, text: m.label })));
  const hw = $('#hw-fields');
  for (const name of HW_FIELDS) if (KEYMAP.has(name)) hw.append(keyInput(KEYMAP.get(name), 'hw'));
  renderKeyRows();
  readLink();
  syncForm();
  for (const r of document.querySelectorAll('input[name=source]')) r.addEventListener('change', () => { state.source = r.value; update(); });
  $('#model').addEventListener('input', (e) => { state.model = e.target.value; state.source = 'preset'; syncForm(); update(); });
  $('#config-text').addEventListener('input', (e) => { state.configText = e.target.value; state.source = 'config'; syncForm(); update(); });
  $('#gpu').addEventListener('input', (e) => { state.gpu = e.target.value; refreshDefaults(); update(); });
  $('#mode').addEventListener('input', (e) => { state.mode = e.target.value; syncForm(); update(); });
  $('#solve').addEventListener('input', (e) => { state.solve = e.target.checked; update(); });
  $('#plan').addEventListener('input', (e) => { state.plan = e.target.checked; update(); });
  $('#plan-devices').addEventListener('input', (e) => { state.planDevices = e.target.value; update(); });
  setupDrop();
  update();
}
main();
