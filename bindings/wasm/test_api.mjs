// The JS API of the WebAssembly build against the native command-line tool: each job is run by
// both, and the whole JSON (every number, every name) or the whole text must be the same; each
// refused job must give the CLI's own message. Files (a config.json, a GGUF, a safetensors folder)
// are handed to both as the same bytes. Run by meson (suite wasm):
//   node test_api.mjs DIR_WITH_llmmem-core.wasm   with LLMMEM_CLI and LLMMEM_TEST_DATA set.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { writeCheckpoint } from '../../tests/web/safetensors.mjs';

const [coreDir] = process.argv.slice(2);
const cli = process.env.LLMMEM_CLI, data = process.env.LLMMEM_TEST_DATA;
if (!coreDir || !cli || !data) {
  console.error('usage: LLMMEM_CLI=... LLMMEM_TEST_DATA=... node test_api.mjs DIR');
  process.exit(2);
}
const { load, LLMMemError } = await import(join(coreDir, 'llmmem.mjs'));
const lm = await load({ wasmBinary: readFileSync(join(coreDir, 'llmmem-core.wasm')) });

let failed = 0, passed = 0;
function report(ok, name, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok' : 'not ok'} ${passed + failed} - ${name}${ok || !detail ? '' : `\n  ${detail}`}`);
}

// JSON.parse with integers past 2^53 as BigInt, as the API returns them: each such literal outside a
// string becomes {"$big": N} (N its place in `big`) and the reviver turns it back.
function parseCli(text) {
  const big = [];
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (t) =>
    (t[0] === '"' || /[.eE]/.test(t) || Number.isSafeInteger(Number(t)) ? t : `{"$big":${big.push(t) - 1}}`));
  return JSON.parse(marked, (k, v) => (v !== null && typeof v === 'object' && '$big' in v ? BigInt(big[v.$big]) : v));
}

// The same files on disk (for the CLI) and in the module (for the API): a job's paths are the API's,
// and `onDisk` maps them for the CLI. A model read from a file is named by the path it was read from,
// so `asOnDisk` maps each such path in a result to the file the CLI read: the name is compared, the
// module's path standing for the disk's.
const disk = mkdtempSync(join(tmpdir(), 'llmmem-wasm-'));
const paths = new Map();
// `size`: the file's whole length, of which only `bytes` are given (a sparse file on disk).
function put(name, bytes, size) {
  const apiPath = lm.putFile(name, bytes, size);
  const diskPath = join(disk, name);
  mkdirSync(join(diskPath, '..'), { recursive: true });
  writeFileSync(diskPath, bytes);
  if (size != null) truncateSync(diskPath, size);
  paths.set(apiPath, diskPath);
  paths.set(apiPath.slice(0, apiPath.lastIndexOf('/')), join(diskPath, '..'));
  return apiPath;
}
const onDisk = (argv) => argv.map((a) => paths.get(a) ?? a);
const asOnDisk = (v) => (typeof v === 'string' ? paths.get(v) ?? v
  : Array.isArray(v) ? v.map(asOnDisk)
    : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asOnDisk(x)])) : v);

// A two-layer Llama of hidden size 64 as a safetensors folder (tests/web/safetensors.mjs writes
// config.json, the index and a sparse shard: its header, then a hole as long as its data).
const tiny = { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 64, intermediate_size: 128,
  num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 256, max_position_embeddings: 512,
  torch_dtype: 'bfloat16', tie_word_embeddings: false, rms_norm_eps: 1e-5 };

const llama8b = put('llama-3.1-8b/config.json', readFileSync(join(data, 'configs', 'llama-3.1-8b.json')));
const qwen3moe = put('qwen3-30b-a3b.json', readFileSync(join(data, 'configs', 'qwen3-30b-a3b.json')));
const gguf = put('llama-mixed.gguf', readFileSync(join(data, 'gguf', 'llama-mixed.gguf')));
const tinyCheckpoint = writeCheckpoint(join(disk, 'tiny'), JSON.stringify(tiny), 1);
for (const file of tinyCheckpoint.files) { // the same folder in the module: each shard's header at its real length
  const name = basename(file), shard = tinyCheckpoint.sizes[name];
  paths.set(lm.putFile(`tiny/${name}`, shard ? readFileSync(file).subarray(0, shard.header) : readFileSync(file), shard?.size), file);
}
const tinyDir = '/input/tiny', tinyShard = `${tinyDir}/model-00001-of-00001.safetensors`;
paths.set(tinyDir, tinyCheckpoint.dir);
// the same shard alone, in a folder without config.json: a checkpoint with no model to read
const shard = tinyCheckpoint.sizes[basename(tinyShard)];
const loneShard = put(`lone/${basename(tinyShard)}`, readFileSync(paths.get(tinyShard)).subarray(0, shard.header), shard.size);

// Llama-3.2-1B trained with transformers, 2 x 2048 tokens in pure bf16: a job the allocation tape
// runs (tests/test_tape.c test_estimate_runs: the H100 job t_llama1b_sdpa, whose reserved peak was
// measured at 21,361,590,272 bytes; on a 16 GiB card it runs out of memory after step 2, layer 15's
// forward, and expandable segments do not save it).
const TAPE = ['framework=hf_trainer', 'mode=training', 'precision_recipe=pure_bf16', 'micro_batch_size=2', 'sequence_length=2048'];
const tape = (gpu, ...sets) => ({ model: 'llama-3.2-1b', gpu, sets: [...TAPE, ...sets] });
// Jobs across every mode; each is run by the API and by `llmmem COMMAND ... --json`.
const jobs = [
  ['estimate', {}],
  ['estimate', { model: 'llama-3.1-70b', gpu: 'a100-sxm-80gb', sets: ['mode=training', 'tensor_parallel=4', 'pipeline_parallel=2', 'micro_batch_size=2', 'zero_stage=1'] }],
  ['estimate', { model: 'llama-3.1-8b', gpu: 'rtx-4090', sets: ['mode=lora', 'sequence_length=4096'] }],
  ['estimate', { model: 'llama-3.1-8b', gpu: 'rtx-4090', sets: ['mode=qlora', 'sequence_length=2048'] }],
  ['estimate', { model: 'qwen3-30b-a3b', gpu: 'h100-sxm-80gb', sets: ['micro_batch_size=4', 'sequence_length=8192'] }],
  ['estimate', { config: llama8b, gpu: 'l40s', sets: ['weight_format=bnb_nf4', 'memory_bytes=24GiB'] }],
  ['estimate', { config: qwen3moe, sets: ['mode=training', 'expert_parallel=8', 'data_parallel=8', 'zero_stage=1'] }],
  ['estimate', { safetensors: tinyDir, gpu: 'rtx-3060-12gb' }],
  // a file of the checkpoint: the config.json of its folder gives the model, named by the file
  ['estimate', { safetensors: `${tinyDir}/model.safetensors.index.json`, gpu: 'rtx-3060-12gb', sets: ['mode=training'] }],
  ['serve', { safetensors: tinyShard, gpu: 'rtx-3060-12gb' }],
  ['estimate', { gguf, gpu: 'rtx-4090' }],
  // 2^37 tokens: activations, logits and totals past 2^53, as BigInt
  ['estimate', { sets: ['mode=training', 'micro_batch_size=1048576', 'sequence_length=131072'] }],
  ['serve', {}],
  ['serve', { model: 'llama-3.1-70b', gpu: 'h100-sxm-80gb', length: '8K', sets: ['tensor_parallel=4'] }],
  ['serve', { model: 'llama-3.1-8b', gpu: 'rtx-4090', engine: 'llama.cpp', sets: ['n_ctx=32768', 'cache_type_k=q8_0'] }],
  ['serve', { model: 'llama-3.1-70b', gpu: 'rtx-3090', engine: 'ollama', sets: ['devices_per_node=2'] }],
  ['serve', { gguf, gpu: 'rtx-4060', engine: 'llama.cpp', sets: ['n_gpu_layers=2', 'n_ctx=4096'] }],
  ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm-80gb', engine: 'sglang', sets: ['tensor_parallel=2'] }],
  ['serve', { model: 'gpt-oss-120b', gpu: 'h200', engine: 'trtllm' }],
  ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm-80gb', engine: 'all', length: '8K', sets: ['devices_per_node=1'] }],
  ['serve', { model: 'qwen3-next-80b-a3b', gpu: 'h200', engine: 'all', sets: ['tensor_parallel=4'] }],
  ['fit', { model: 'llama-3.1-8b', gpu: 'a100-sxm-40gb', sets: ['mode=training'] }],
  ['fit', { model: 'llama-3.1-70b', gpu: 'rtx-4090', engine: 'llama.cpp' }],
  ['fit', { model: 'llama-3.1-8b', gpu: 'rtx-3060-12gb', engine: 'ollama', devices: 4 }],
  ['plan', { model: 'llama-3.1-70b', gpu: 'h100-sxm-80gb', devices: 16, top: 3, sets: ['mode=training'] }],
  // replayed through PyTorch's caching allocator: runs; runs out of memory (the placements differ);
  // runs only with expandable segments; a generate whose decode steps are replayed every 1563 tokens
  ['estimate', tape('rtx-4090')],
  ['estimate', tape('rtx-4090', 'memory_bytes=16GiB')],
  ['estimate', tape('rtx-4090', 'sequence_length=2600')],
  ['estimate', tape('h100-sxm-80gb', 'mode=inference', 'micro_batch_size=1', 'sequence_length=16', 'max_new_tokens=100000')],
  ['estimate', tape('rtx-4090', 'tensor_parallel=2')],
  ['fit', tape('rtx-4090')],
  ['fit', tape('rtx-4090', 'expandable_segments=true')],
];
const exactMs = [];
let equal = 0;
for (const [command, job] of jobs) {
  const argv = lm.argv(command, job);
  const name = `llmmem ${argv.join(' ')}`;
  let api, ref;
  try {
    const t0 = performance.now();
    api = lm[command](job);
    exactMs.push(performance.now() - t0);
    ref = parseCli(execFileSync(cli, onDisk(argv), { encoding: 'utf8' }));
  } catch (e) {
    report(false, name, e.message);
    continue;
  }
  const same = isDeepStrictEqual(asOnDisk(api), ref);
  if (same) equal++;
  report(same, name, same ? '' : `API ${JSON.stringify(api, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 400)}\n  CLI ${JSON.stringify(ref, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 400)}`);
}

// Every preset under four commands: a 32-bit size_t or a 64-bit value crossing into JS would show
// here first. A job the CLI refuses must be refused with the same message.
{
  let same = 0;
  const differ = [];
  for (const model of lm.models()) {
    for (const [command, job] of [['estimate', { model }], ['estimate', { model, sets: ['mode=training'] }],
      ['serve', { model }], ['serve', { model, engine: 'llama.cpp', sets: ['n_ctx=8192'] }]]) {
      const argv = lm.argv(command, job);
      const r = spawnSync(cli, argv, { encoding: 'utf8' });
      let api;
      try {
        api = lm[command](job);
      } catch (e) {
        api = e;
      }
      const ok = r.status === 0 ? isDeepStrictEqual(api, parseCli(r.stdout))
        : api instanceof LLMMemError && api.message === r.stderr.replace(/^llmmem: error: /, '').trim();
      if (ok) same++;
      else differ.push(`llmmem ${argv.join(' ')}`);
    }
  }
  report(differ.length === 0, `every preset: ${same} jobs the same as the CLI`, differ.slice(0, 5).join('\n  '));
}

// Integers past 2^53 come back exact, as BigInt; one derived by hand. Llama 3.1 8B (vocab_size
// 128256 in its config.json) trained on micro_batch_size 2^20 x sequence_length 2^17 = 2^37 tokens:
// with transformers' loss (loss_utils.ForCausalLMLoss, logits upcast to fp32, logits_fp32's
// default), backward holds the gradients of the log-probabilities and of the logits, 4 bytes each
// per logit: 2^37 x 128256 x 8 = 141018963332038656 bytes, which no Number holds exactly.
{
  let r, error;
  try {
    r = lm.estimate({ sets: ['mode=training', 'micro_batch_size=1048576', 'sequence_length=131072'] });
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  const want = (2n ** 37n) * 128256n * 8n;
  const got = r?.training_peak?.logits_transient;
  report(got === want && typeof r.per_device.total === 'bigint' && typeof r.per_device.weights === 'number',
    `2^37 tokens: logits_transient ${got} is exactly ${want} (a BigInt; 16 GB of weights stay a Number)`, error);
}

// A text the core cannot take whole is refused naming the option, as the Python binding refuses it
// (_checked_text): a NUL (a C string would end there, and the rest would be dropped silently) or a
// lone surrogate (no UTF-8 form; emscripten's encoder took the next character as its pair). A
// surrogate pair is one character and goes through whole.
{
  const cases = [
    ['estimate', { sets: ['mode=training\u0000junk'] }, 'set:mode', "--set 'mode=training\\u0000junk' contains a NUL character"],
    ['estimate', { model: 'llama-3.1-8b\u0000evil' }, 'model', "--model 'llama-3.1-8b\\u0000evil' contains a NUL character"],
    ['estimate', { sets: ['mode\u0000x=training'] }, 'set:mode\\u0000x', "--set 'mode\\u0000x=training' contains a NUL character"],
    ['estimate', { gpu: 'rtx-4090\u0000' }, 'gpu', "--gpu 'rtx-4090\\u0000' contains a NUL character"],
    ['estimate', { config: `${llama8b}\u0000.txt` }, 'config', `--config '${llama8b}\\u0000.txt' contains a NUL character`],
    ['fit', { devices: '8\u00004' }, 'devices', "--devices '8\\u00004' contains a NUL character"],
    ['estimate', { model: 'x\uD800yz' }, 'model', "--model 'x\\ud800yz' cannot be encoded as UTF-8: a lone surrogate (character 1)"],
    ['estimate', { sets: ['mode=tr\uDC00aining'] }, 'set:mode', "--set 'mode=tr\\udc00aining' cannot be encoded as UTF-8: a lone surrogate (character 7)"],
    ['serve', { engine: 'llama.cpp\uDBFF' }, 'engine', "--engine 'llama.cpp\\udbff' cannot be encoded as UTF-8: a lone surrogate (character 9)"],
  ];
  const wrong = [];
  for (const [command, job, field, message] of cases) {
    try {
      lm[command](job);
      wrong.push(`${JSON.stringify(job)} accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError) || e.field !== field || e.message !== message || e.status !== 'LLMMEM_ERR_INVALID_ARGUMENT')
        wrong.push(`${JSON.stringify(job)}: ${e.name} ${e.status} ${e.field} "${e.message}"`);
    }
  }
  try {
    lm.putFile('surrogate.json', '{"model_type": "\uD83Dllama"}');
    wrong.push('putFile of a text with a lone surrogate accepted');
  } catch (e) {
    if (!(e instanceof LLMMemError) || !e.message.includes('lone surrogate (character 16)')) wrong.push(`putFile: ${e.name} ${e.message}`);
  }
  // a pair is whole: the core quotes it back, and the character after it, unchanged
  try {
    lm.estimate({ model: 'llama-\u{1F600}-x' });
    wrong.push('an unknown model accepted');
  } catch (e) {
    if (e.message !== "unknown model 'llama-\u{1F600}-x' (llmmem models lists them)") wrong.push(`a surrogate pair: "${e.message}"`);
  }
  report(wrong.length === 0, `${cases.length + 2} texts with a NUL, a lone surrogate or a pair`, wrong.join('\n  '));
}

// The allocator's replay: the measured reserved peak and the C test's facts; and why a job is not
// replayed, as the CLI's text says it ("allocator: not replayed: ..."), in notReplayed.
{
  const wrong = [];
  const h100 = lm.estimate(tape('h100-sxm-80gb'));
  if (h100.allocator?.reserved_peak !== 21361590272 || h100.allocator.runs !== true || h100.fits !== true || lm.notReplayed !== null)
    wrong.push(`H100: ${JSON.stringify(h100.allocator)}, not replayed ${lm.notReplayed}`);
  const small = lm.estimate(tape('rtx-4090', 'memory_bytes=16GiB'));
  const a = small.allocator;
  if (a?.runs !== false || small.fits !== false || a.out_of_memory?.after !== "step 2, layer 15's forward" || a.runs_with_expandable_segments !== false
    || small.device_total_bytes !== 16 * 2 ** 30)
    wrong.push(`16 GiB: ${JSON.stringify(small.allocator)}`);
  for (const job of [{}, tape('rtx-4090', 'tensor_parallel=2'), tape('rtx-4090', 'framework=megatron'), tape('rtx-4090')]) {
    const r = lm.estimate(job);
    const text = execFileSync(cli, lm.argv('estimate', job).filter((x) => x !== '--json'), { encoding: 'utf8' });
    const line = /^allocator: not replayed: (.*)$/m.exec(text)?.[1] ?? null;
    if (lm.notReplayed !== line || (line === null) !== ('allocator' in r)) wrong.push(`${JSON.stringify(job.sets ?? [])}: notReplayed "${lm.notReplayed}", the CLI "${line}"`);
  }
  lm.serve({});
  if (lm.notReplayed !== null) wrong.push('notReplayed outlives its estimate');
  report(wrong.length === 0, 'the allocator\'s replay: the measured reserved peak, out of memory on 16 GiB, and why not replayed as the CLI says it', wrong.join('\n  '));
}

// The allocator's timeline: `llmmem timeline --allocator --json`'s, its highest reserved point the
// measured reserved peak plus the memory outside the allocator (768 MiB, runtime_overhead_bytes'
// default); a job the tape does not run is refused with the reason notReplayed gives.
{
  const wrong = [];
  for (const job of [tape('h100-sxm-80gb'), tape('rtx-4090', 'memory_bytes=16GiB')]) {
    const t = lm.timelineRuns(job);
    const argv = ['timeline', '--allocator', ...lm.argv('estimate', job).slice(1)];
    const ref = parseCli(execFileSync(cli, argv, { encoding: 'utf8' }));
    if (!isDeepStrictEqual(t, ref)) wrong.push(`${job.gpu}: differs from llmmem ${argv.join(' ')}`);
  }
  const h100 = lm.timelineRuns(tape('h100-sxm-80gb'));
  const reserved = h100.points.map((p) => p.reserved);
  if (Math.max(...reserved) !== 21361590272 + 768 * 2 ** 20 || h100.points[0].step !== 0 || h100.points.at(-1).step !== 1)
    wrong.push(`H100: highest reserved ${Math.max(...reserved)}, steps ${h100.points[0].step} to ${h100.points.at(-1).step}`);
  lm.estimate(tape('rtx-4090', 'framework=megatron'));
  const why = lm.notReplayed;
  try {
    lm.timelineRuns(tape('rtx-4090', 'framework=megatron'));
    wrong.push('megatron replayed');
  } catch (e) {
    if (!(e instanceof LLMMemError) || e.message !== why || e.field !== 'job') wrong.push(`megatron: "${e.message}" (${e.field}), notReplayed "${why}"`);
  }
  report(wrong.length === 0, 'timelineRuns: the CLI\'s allocator timeline, the measured reserved peak plus outside, and a job not modelled refused', wrong.join('\n  '));
}

// explain is text: the same text.
{
  const job = { model: 'llama-3.1-8b', sets: ['mode=training', 'micro_batch_size=2'] };
  const text = lm.explain(job), ref = execFileSync(cli, lm.argv('explain', job), { encoding: 'utf8' });
  report(text === ref, 'explain gives the CLI\'s text', text === ref ? '' : `${text.slice(0, 200)} | ${ref.slice(0, 200)}`);
}

// Refusals: the API throws the CLI's own message, naming the part of the job.
const refusals = [
  ['estimate', { sets: ['mode=training', 'tensor_parallel=3'] }, 'job'],
  ['estimate', { sets: ['no_such_key=1'] }, 'set:no_such_key'],
  ['estimate', { sets: ['micro_batch_size=-1'] }, 'set:micro_batch_size'],
  ['estimate', { model: 'no-such-model' }, 'model'],
  ['estimate', { gpu: 'no-such-gpu' }, 'gpu'],
  ['serve', { engine: 'llama.cpp', sets: ['cache_type_v=q4_0', 'flash_attn=off'] }, 'job'],
  ['fit', { devices: '0' }, 'devices'],
  ['estimate', { config: put('broken.json', Buffer.from('{"model_type": "llama", "hidden_size": 4096,,}')) }, 'config'],
  ['estimate', { gguf: put('truncated.gguf', readFileSync(join(data, 'gguf', 'llama-mixed.gguf')).subarray(0, 300)) }, 'gguf'],
  // the CLI's own checks of its arguments
  ['fit', { safetensors: tinyDir }, 'safetensors'],
  // a checkpoint is read first, and gives the model unless one is given (the CLI's model_of)
  ['estimate', { safetensors: put('broken.safetensors', Buffer.from('not a header')), sets: ['no_such_key=1'] }, 'safetensors'],
  ['estimate', { safetensors: loneShard }, 'safetensors'],
  ['estimate', { length: 100 }, 'length'],
  ['estimate', { model: 'llama-3.1-8b', gguf }, 'model'],
  ['estimate', { sets: ['mode'] }, 'set:mode'],
  ['plan', {}, 'devices'],
  ['serve', { length: '12 tokens' }, 'length'],
  ['plan', { devices: 8, top: -1 }, 'top'],
  ['serve', { engine: 'llama.cpp', length: 100 }, 'length'],
];
for (const [command, job, field] of refusals) {
  const argv = lm.argv(command, job);
  const r = spawnSync(cli, onDisk(argv), { encoding: 'utf8' });
  const cliMessage = r.stderr.replace(/^llmmem: error: /, '').trim().replaceAll(disk, '/input');
  try {
    lm[command](job);
    report(false, `refused: llmmem ${argv.join(' ')}`, 'the API accepted it');
  } catch (e) {
    const ok = e instanceof LLMMemError && r.status !== 0 && e.message === cliMessage && e.field === field;
    report(ok, `refused: llmmem ${argv.join(' ')} -> ${e.field}: ${e.message}`,
      `status ${r.status}, CLI "${cliMessage}", API ${e.name} field ${e.field} "${e.message}"`);
  }
}

// A dropped file's first bytes with its real length (putFile's size): the same answer as the CLI
// on the whole file's length with nothing but those bytes (a sparse file); a header longer than the
// bytes given is an I/O error, never a read of made-up bytes.
{
  const whole = readFileSync(join(data, 'gguf', 'llama-mixed.gguf'));
  const head = whole.subarray(0, 4096);
  const path = put('head.gguf', head, whole.length);
  for (const command of ['estimate', 'serve']) {
    const job = command === 'serve' ? { gguf: path, engine: 'llama.cpp', sets: ['n_ctx=4096'] } : { gguf: path };
    const ref = parseCli(execFileSync(cli, onDisk(lm.argv(command, job)), { encoding: 'utf8' }));
    report(isDeepStrictEqual(asOnDisk(lm[command](job)), ref), `${command}: 4096 bytes of a ${whole.length}-byte GGUF, as the CLI on the sparse file`);
  }
  let status;
  try {
    lm.estimate({ gguf: lm.putFile('short.gguf', whole.subarray(0, 100), whole.length) });
  } catch (e) {
    status = e.status;
  }
  report(status === 'LLMMEM_ERR_IO', `100 bytes of the header: ${status}`);
}

// Every key as `llmmem keys` lists it: object, type and default.
{
  const listed = execFileSync(cli, ['keys'], { encoding: 'utf8' }).split('\n');
  const differ = [];
  let checked = 0;
  for (const k of lm.keys()) {
    const at = listed.indexOf(k.name);
    const m = at >= 0 && /object: (\w+)\s+type: (\w+)\s+bounds: \S+\s+default: (.*)$/.exec(listed[at + 1]);
    const def = m && (k.type === 'real' ? Number(m[3]) === k.default : k.type === 'list' ? m[3] === 'empty' : m[3] === k.defaultText);
    if (m && m[1] === k.object && m[2] === k.type && def) checked++;
    else differ.push(`${k.name}: ${listed[at + 1]} | ${k.object} ${k.type} ${k.defaultText}`);
  }
  report(differ.length === 0 && checked === lm.keys().length, `${checked} keys as \`llmmem keys\` lists them`, differ.slice(0, 3).join('\n  '));
}

// What no command line can hold, as a hostile caller would write it: a job that is not a plain
// object, an option of the wrong type, a getter or Proxy that throws, a Number that is not a safe
// whole number, texts and lists longer than a command line, bad file names, data and sizes. Each is
// an LLMMemError naming the field, never a TypeError from inside, an accepted job or a hang.
{
  let reads = 0;
  const countedSets = { get sets() { reads++; return ['mode=training']; } };
  const throwing = { get model() { throw new Error('getter failed'); } };
  const hugeSparse = [];
  hugeSparse.length = 2 ** 32 - 1;
  const throwingItem = ['mode=training'];
  Object.defineProperty(throwingItem, 0, { get() { throw new Error('item getter failed'); } });
  const bad = [
    [null, 'job'], [[], 'job'], ['model=llama-3.1-8b', 'job'], [new Map([['model', 'llama-3.1-70b']]), 'job'],
    [new Date(), 'job'], [Object.create({ model: 42 }), 'job'], [new Proxy({}, { ownKeys() { throw new Error('trap'); } }), 'job'],
    [{ model: 3 }, 'model'], [{ model: new String('llama-3.1-8b') }, 'model'], [{ model: ['llama-3.1-8b'] }, 'model'],
    [{ gpu: ['h100-sxm-80gb'] }, 'gpu'], [{ engine: 2 }, 'engine'], [{ config: {} }, 'config'], [{ model: true }, 'model'],
    [{ model: 5n }, 'model'], [{ sets: [5n] }, 'sets'], [{ gguf: () => 'x.gguf' }, 'gguf'],
    [{ sets: 'mode=training' }, 'sets'], [{ sets: [1] }, 'sets'], [{ sets: [['mode', 'training']] }, 'sets'],
    [{ sets: [undefined] }, 'sets'], [{ sets: [, 'mode=training'] }, 'sets'], [{ sets: hugeSparse }, 'sets'],
    [{ sets: Array(4097).fill('micro_batch_size=2') }, 'sets'], [{ sets: throwingItem }, 'sets'], [throwing, 'model'],
    [{ devices: {} }, 'devices'], [{ devices: NaN }, 'devices'], [{ devices: Infinity }, 'devices'], [{ devices: -Infinity }, 'devices'],
    [{ devices: 8.5 }, 'devices'], [{ devices: 2 ** 60 }, 'devices'], [{ devices: true }, 'devices'], [{ devices: [8] }, 'devices'],
    [{ devices: -1n }, 'devices'], [{ devices: 2n ** 70n }, 'devices'], [{ devices: Symbol('8') }, 'devices'],
    [{ model: 'm'.repeat(50_000_000) }, 'model'], [{ sets: [`mode=${'x'.repeat(131072)}`] }, 'set:mode'],
    [{ ['y'.repeat(100_000)]: 1 }, 'job'], [{ modle: 'llama-3.1-8b' }, 'job'],
  ];
  const wrong = [];
  for (const [job, field] of bad) {
    try {
      lm.fit(job);
      wrong.push(`${String(Object.keys(job ?? {})).slice(0, 40)} accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError) || e.field !== field || e.message.length > 300)
        wrong.push(`${e.name} field ${e.field} (want ${field}): ${e.message.slice(0, 120)}`);
    }
  }
  // read once: the value the checks saw is the value the core gets
  if (lm.estimate(countedSets).training_peak === undefined || reads !== 1) wrong.push(`a getter read ${reads} times`);
  // whole Numbers as floats and BigInt: the same as their text
  if (lm.fit({ devices: 8.0 }).max_devices !== 8 || lm.fit({ devices: 8n }).max_devices !== 8) wrong.push('devices 8.0 or 8n is not 8');
  for (const [command, given] of [[42, {}], ['rm', {}], ['estimate', { sets: 5 }], ['estimate', { model: 'a\u0000' }]]) {
    try {
      lm.argv(command, given);
      wrong.push(`argv(${String(command)}) accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError)) wrong.push(`argv(${String(command)}): ${e.name} ${e.message}`);
    }
  }
  const files = [[['../x', 'x'], 'is not a file name'], [['a/b/c', 'x'], 'is not a file name'], [['', 'x'], 'is not a file name'],
    [['x y', 'x'], 'is not a file name'], [[Symbol('x'), 'x'], 'a symbol is not a file name'], [['a\u0000b', 'x'], 'is not a file name'],
    [['a.json', 42], 'not a number'], [['a.json', null], 'not null'], [['a.json', { length: 2 }], 'not an object'],
    [['a.json', 'abcd', 2], 'size 2 is not'], [['a.json', 'abcd', -1], 'size -1 is not'], [['a.json', 'abcd', NaN], 'size NaN is not'],
    [['a.json', 'abcd', 4.5], 'size 4.5 is not'], [['a.json', 'abcd', '100'], 'not a string'], [['a.json', 'abcd', 2 ** 60], 'is not']];
  for (const [args, words] of files) {
    try {
      lm.putFile(...args);
      wrong.push(`putFile ${String(args[0])} accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError) || !e.message.includes(words)) wrong.push(`putFile ${String(args[0])}: ${e.name} ${e.message}`);
    }
  }
  const bytes = new TextEncoder().encode('{"model_type": "llama"}');
  try {
    lm.putFile('view.json', new DataView(bytes.buffer));
    lm.putFile('buf.json', bytes.buffer, 100n);
  } catch (e) {
    wrong.push(`putFile of a DataView or an ArrayBuffer with a BigInt size: ${e.name} ${e.message}`);
  }
  for (const options of [null, 5, 'wasm']) {
    try {
      await load(options);
      wrong.push(`load(${options}) accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError)) wrong.push(`load(${options}): ${e.name} ${e.message}`);
    }
  }
  report(wrong.length === 0, `${bad.length} malformed jobs, ${files.length} bad files, bad commands and options refused by name`, wrong.join('\n  '));
}

// A refused job leaves the module as it was: the next job gives the same bytes as before.
report(isDeepStrictEqual(lm.estimate({}), lm.estimate({})), 'a refusal leaves nothing behind');

exactMs.sort((a, b) => a - b);
console.log(`# ${equal} of ${jobs.length} jobs equal to the CLI's JSON; median API call ${exactMs[exactMs.length >> 1].toFixed(3)} ms`);
rmSync(disk, { recursive: true, force: true });
console.log(`# ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
