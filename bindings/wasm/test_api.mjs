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

// JSON.parse with integers past 2^53 as BigInt, as the API returns them.
function parseCli(text) {
  return JSON.parse(text.replace(/(?<=[:\[,\s])-?\d{16,}(?=[,\]\}\s])/g, (d) => (Number.isSafeInteger(Number(d)) ? d : `"\u0000${d}"`)),
    (k, v) => (typeof v === 'string' && v.startsWith('\u0000') ? BigInt(v.slice(1)) : v));
}

// The same files on disk (for the CLI) and in the module (for the API): a job's paths are the API's,
// and `onDisk` maps them for the CLI.
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
  lm.putFile(`tiny/${name}`, shard ? readFileSync(file).subarray(0, shard.header) : readFileSync(file), shard?.size);
}
const tinyDir = '/input/tiny';
paths.set(tinyDir, tinyCheckpoint.dir);

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
  ['estimate', { gguf, gpu: 'rtx-4090' }],
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
  const same = isDeepStrictEqual(api, ref);
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
    report(isDeepStrictEqual(lm[command](job), ref), `${command}: 4096 bytes of a ${whole.length}-byte GGUF, as the CLI on the sparse file`);
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

// What no command line can hold: a job that is not an object, an option of the wrong type, a file
// name that is not one. Each is an LLMMemError naming the field, never a TypeError from inside.
{
  const bad = [[null, 'job'], [[], 'job'], [{ model: 3 }, 'model'], [{ sets: 'mode=training' }, 'sets'],
    [{ sets: [1] }, 'sets'], [{ devices: {} }, 'devices'], [{ gpu: ['h100-sxm-80gb'] }, 'gpu']];
  const wrong = [];
  for (const [job, field] of bad) {
    try {
      lm.fit(job);
      wrong.push(`${JSON.stringify(job)} accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError) || e.field !== field) wrong.push(`${JSON.stringify(job)}: ${e.name} ${e.field} ${e.message}`);
    }
  }
  for (const name of ['../x', 'a/b/c', '', 'x y']) {
    try {
      lm.putFile(name, 'x');
      wrong.push(`putFile '${name}' accepted`);
    } catch (e) {
      if (!(e instanceof LLMMemError)) wrong.push(`putFile '${name}': ${e.name}`);
    }
  }
  report(wrong.length === 0, `${bad.length} malformed jobs and 4 bad file names refused by name`, wrong.join('\n  '));
}

// A refused job leaves the module as it was: the next job gives the same bytes as before.
report(isDeepStrictEqual(lm.estimate({}), lm.estimate({})), 'a refusal leaves nothing behind');

exactMs.sort((a, b) => a - b);
console.log(`# ${equal} of ${jobs.length} jobs equal to the CLI's JSON; median API call ${exactMs[exactMs.length >> 1].toFixed(3)} ms`);
rmSync(disk, { recursive: true, force: true });
console.log(`# ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
