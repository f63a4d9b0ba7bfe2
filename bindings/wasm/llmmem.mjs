// The JS API of libllmmem's WebAssembly build: the C API's handles, keys by name and JSON results,
// with the command-line tool's jobs on top, so that a page and `llmmem ... --json` answer a job the
// same way. No arithmetic here: every number comes from the core (64-bit integers cross as BigInt).
//
//   import { load } from './llmmem.mjs';
//   const lm = await load();              // a browser fetches llmmem-core.wasm beside this file
//   lm.estimate({ model: 'llama-3.1-8b', gpu: 'h100-sxm-80gb', sets: ['mode=training'] });
//
// A job is the CLI's options: { model, config, gguf, safetensors, gpu, engine, length, devices, top,
// sets: ['key=value', ...] }, files by their path in the module's in-memory file system (putFile).
import createLLMMemCore from './llmmem-core.js';

// The CLI's defaults (examples/cli_args.h: CLI_DEFAULT_MODEL, CLI_DEFAULT_GPU, CLI_DEFAULT_FIT_DEVICES,
// CLI_DEFAULT_TOP); the browser tests check that an empty job gives the CLI's answer.
export const DEFAULTS = Object.freeze({ model: 'llama-3.1-8b', gpu: 'h100-sxm-80gb', devices: 1024, top: 10 });

// The enums of include/llmmem/llmmem.h this file passes or reads.
const OBJECT_NAMES = { 1: 'model', 2: 'hardware', 3: 'strategy' };
const TYPE_NAMES = { 1: 'int', 2: 'bool', 3: 'choice', 4: 'real', 5: 'flags', 6: 'list' };
const TYPE_INT = 1, TYPE_CHOICE = 3, TYPE_REAL = 4, TYPE_FLAGS = 5, TYPE_LIST = 6;
// llmmem_status, by value (an append-only enum): LLMMemError.status names it.
const STATUS = ['LLMMEM_OK', 'LLMMEM_ERR_INVALID_ARGUMENT', 'LLMMEM_ERR_OUT_OF_RANGE', 'LLMMEM_ERR_UNKNOWN_KEY',
  'LLMMEM_ERR_NOT_FOUND', 'LLMMEM_ERR_INCOMPATIBLE', 'LLMMEM_ERR_OVERFLOW', 'LLMMEM_ERR_NO_MEMORY', 'LLMMEM_ERR_IO',
  'LLMMEM_ERR_PARSE', 'LLMMEM_ERR_UNSUPPORTED', 'LLMMEM_ERR_INCOMPLETE'];
const OK = 0, ERR_INVALID_ARGUMENT = 1, ERR_OUT_OF_RANGE = 2, ERR_NOT_FOUND = 4, ERR_INCOMPATIBLE = 5,
  ERR_NO_MEMORY = 7, ERR_INCOMPLETE = 11;
const ENGINE_LLAMA_CPP = 2n, ENGINE_OLLAMA = 3n;
const KEY = { engine: 'engine', fitMargin: 'fit_margin_bytes', requestTokens: 'request_tokens', weightFormat: 'weight_format', numParameters: 'num_parameters' };
const LOCAL_QUESTIONS = [['max_gpu_layers', 0], ['max_context', 1], ['max_parallel', 2]]; // llmmem_local_question
const INPUT_DIR = '/input';
// The job's options in the CLI's order (examples/cli_args.c cli_option_table) and the commands
// that take each: a job is refused as `llmmem` refuses the same arguments.
const OPTIONS = [
  ['model', ['estimate', 'explain', 'serve', 'fit', 'plan']], ['gpu', ['estimate', 'explain', 'serve', 'fit', 'plan']],
  ['sets', ['estimate', 'explain', 'serve', 'fit', 'plan']], ['safetensors', ['estimate', 'explain', 'serve']],
  ['config', ['estimate', 'explain', 'serve', 'fit', 'plan']], ['gguf', ['estimate', 'explain', 'serve', 'fit', 'plan']],
  ['length', ['serve']], ['devices', ['fit', 'plan']], ['top', ['plan']], ['engine', ['serve', 'fit']],
];
const EIO = 29; // emscripten's errno numbering (WASI)
const PLAN_MAX_DEVICES = 16777216n; // LLMMEM_PLAN_MAX_DEVICES
const INT64_MAX = 0x7fffffffffffffffn, SIZE_MAX = 0xffffffffn; // SIZE_MAX: wasm32's size_t

/** A failure of the core: `code` is its llmmem_status, `status` that status's name
 * ("LLMMEM_ERR_PARSE"), `message` the library's own message, and `field` the part of the job it came
 * from: 'model', 'config', 'gguf', 'safetensors', 'gpu', 'engine', 'length', 'devices', 'top',
 * 'set:KEY' or 'job'. */
export class LLMMemError extends Error {
  constructor(code, message, field) {
    super(message);
    this.name = 'LLMMemError';
    this.code = code;
    this.status = STATUS[code] || `status ${code}`;
    this.field = field;
  }
}

/** Loads the module: `options` go to emscripten's factory (under node: { wasmBinary }). */
export async function load(options = {}) {
  return new LLMMem(await createLLMMemCore(options));
}

// Whether a parsed value holds a number that may have been rounded: an integer past 2^53.
function rounded(v) {
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v);
  if (v && typeof v === 'object') for (const k in v) if (rounded(v[k])) return true;
  return false;
}

// JSON from the core with every integer exact: one past 2^53 becomes a BigInt. The usual answer
// has none and is parsed once; otherwise such literals are quoted with a NUL mark before JSON.parse
// (the core's strings never hold a NUL) and turned back.
function parseExact(text) {
  const plain = JSON.parse(text);
  if (!rounded(plain)) return plain;
  let out = '', last = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if ((c === '-' || (c >= '0' && c <= '9'))) {
      let j = i + 1;
      while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      const literal = text.slice(i, j);
      if (!'.eE'.includes(text[j] || ' ') && !Number.isSafeInteger(Number(literal))) {
        out += text.slice(last, i) + `"\u0000${literal}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  if (last === 0) return JSON.parse(text);
  return JSON.parse(out + text.slice(last), (k, v) =>
    typeof v === 'string' && v.startsWith('\u0000') ? BigInt(v.slice(1)) : v);
}

// A value read from the core as a JS number when exact, else a BigInt.
function exact(big) {
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

class LLMMem {
  constructor(core) {
    this.core = core;
    this.version = this.#str(core._llmmem_version_string());
    /** What the last command would have printed on stderr as warnings (a checkpoint that does
     * not match its model), as the CLI's "warning: ..." lines without the prefix. */
    this.warnings = [];
    this.#keyCache = null;
  }

  #keyCache;

  // ---- memory ------------------------------------------------------------------------------

  #str(ptr) { return ptr ? this.core.UTF8ToString(ptr) : null; }

  // Runs fn with a NUL-terminated copy of each text in the module's memory.
  #withStrings(texts, fn) {
    const ptrs = texts.map((t) => {
      const n = this.core.lengthBytesUTF8(t) + 1, p = this.core._malloc(n);
      if (!p) throw new LLMMemError(ERR_NO_MEMORY, 'out of memory', 'job');
      this.core.stringToUTF8(t, p, n);
      return p;
    });
    try { return fn(...ptrs); } finally { ptrs.forEach((p) => this.core._free(p)); }
  }

  // Runs fn with an 8-byte aligned out-parameter area of `slots` 8-byte slots, zeroed.
  #withOut(slots, fn) {
    const p = this.core._malloc(8 * slots);
    if (!p) throw new LLMMemError(ERR_NO_MEMORY, 'out of memory', 'job');
    this.core.HEAPU8.fill(0, p, p + 8 * slots);
    try { return fn(p); } finally { this.core._free(p); }
  }

  #view() { return new DataView(this.core.HEAPU8.buffer); }
  #ptrAt(p) { return this.#view().getUint32(p, true); }
  #u64At(p) { return this.#view().getBigUint64(p, true); }
  #i64At(p) { return this.#view().getBigInt64(p, true); }
  #f64At(p) { return this.#view().getFloat64(p, true); }
  #i32At(p) { return this.#view().getInt32(p, true); }

  // Throws the library's message for a failed call.
  #check(status, field, context) {
    if (status === OK) return;
    const message = this.#str(this.core._llmmem_last_message());
    throw new LLMMemError(status, message || `${context}: ${this.#str(this.core._llmmem_status_str(status))}`, field);
  }

  // A string the core allocated (char **out), freed after it is read.
  #takeString(fn, field, context) {
    return this.#withOut(1, (out) => {
      this.#check(fn(out), field, context);
      const p = this.#ptrAt(out);
      try { return this.#str(p); } finally { this.core._llmmem_string_free(p); }
    });
  }

  // ---- catalogs and keys -------------------------------------------------------------------

  /** The model presets, in the catalog's order. */
  models() {
    const c = this.core, names = [];
    for (let i = 0, n = c._llmmem_model_preset_count(); i < n; i++) names.push(this.#str(c._llmmem_model_preset_name(i)));
    return names;
  }

  /** The components of an estimate's per-device memory, in the report's order
   * (llmmem_component_name). */
  components() {
    const c = this.core, names = [];
    for (let i = 0, n = c._llmmem_component_count(); i < n; i++) names.push(this.#str(c._llmmem_component_name(i)));
    return names;
  }

  /** The buffers of a local (llama.cpp, ollama) device, in the result's order (llmmem_local_buffer_name). */
  localBuffers() {
    const c = this.core, names = [];
    for (let i = 0, n = c._llmmem_local_buffer_count(); i < n; i++) names.push(this.#str(c._llmmem_local_buffer_name(i)));
    return names;
  }

  /** Every key: { id, name, object, type, doc, min, max, default, defaultText, choices } (id: its
   * llmmem_key value; default: the number; defaultText: as `llmmem keys` prints it; choices: the
   * names of a choice key's values, a bool's false/true, a flags key's bits; empty otherwise). */
  keys() {
    if (this.#keyCache) return this.#keyCache;
    const c = this.core, keys = [];
    for (let i = 0, n = c._llmmem_key_count(); i < n; i++) {
      const key = c._llmmem_key_at(i);
      const k = { id: key, name: this.#str(c._llmmem_key_name(key)), doc: this.#str(c._llmmem_key_doc(key)) || '' };
      this.#withOut(3, (p) => {
        this.#check(c._llmmem_key_object(p, key), 'job', 'llmmem_key_object');
        k.object = OBJECT_NAMES[this.#i32At(p)];
        this.#check(c._llmmem_key_type(p, key), 'job', 'llmmem_key_type');
        const type = this.#i32At(p);
        k.type = TYPE_NAMES[type];
        k.choices = [];
        if (type === TYPE_LIST) {
          k.min = 0; k.max = 16; k.default = ''; k.defaultText = '';
        } else if (type === TYPE_REAL) {
          this.#check(c._llmmem_key_bounds_real(p, p + 8, key), 'job', 'llmmem_key_bounds_real');
          this.#check(c._llmmem_key_default_real(p + 16, key), 'job', 'llmmem_key_default_real');
          k.min = this.#f64At(p); k.max = this.#f64At(p + 8); k.default = this.#f64At(p + 16);
          k.defaultText = String(k.default);
        } else {
          this.#check(c._llmmem_key_bounds(p, p + 8, key), 'job', 'llmmem_key_bounds');
          this.#check(c._llmmem_key_default(p + 16, key), 'job', 'llmmem_key_default');
          const lo = this.#i64At(p), hi = this.#i64At(p + 8);
          k.min = exact(lo); k.max = exact(hi); k.default = exact(this.#i64At(p + 16));
          // the default as `llmmem keys` prints it (its format_value): a choice's or bool's name,
          // a flags key's bit names joined by ',' ("none" for no bit), else the number
          const def = this.#i64At(p + 16);
          k.defaultText = type === TYPE_INT ? String(def) : this.#str(c._llmmem_choice_name(key, def)) ?? String(def);
          if (type === TYPE_FLAGS) {
            const set = [];
            for (let bit = 1n; bit > 0n && bit <= hi; bit <<= 1n) {
              const name = this.#str(c._llmmem_choice_name(key, bit));
              if (name) k.choices.push(name);
              if (name && (def & bit)) set.push(name);
            }
            k.defaultText = set.length ? set.join(',') : 'none';
          } else if (type === TYPE_CHOICE || k.type === 'bool') {
            // as `llmmem keys`: choice ranges are small; the cap guards against a broken bound
            for (let v = lo; v <= hi && v - lo < 4096n; v++) {
              const name = this.#str(c._llmmem_choice_name(key, v));
              if (name) k.choices.push(name);
            }
          }
        }
      });
      keys.push(Object.freeze(k));
    }
    this.#keyCache = Object.freeze(keys);
    return this.#keyCache;
  }

  /** The hardware presets: { name, <every hardware key>: its value } each (a choice or bool key's
   * value by its name, as `llmmem keys` writes it). */
  gpus() {
    const c = this.core, hwKeys = this.keys().filter((k) => k.object === 'hardware'), out = [];
    for (let i = 0, n = c._llmmem_hardware_preset_count(); i < n; i++) {
      const name = this.#str(c._llmmem_hardware_preset_name(i));
      const row = { name };
      this.#withHandle('hardware', () => this.#hardware(name, 'gpu'), (hw) => {
        for (const k of hwKeys) row[k.name] = this.#getKey(hw, k);
      });
      out.push(row);
    }
    return out;
  }

  // A hardware key's value: a real, a choice's or bool's name, else the number.
  #getKey(hw, k) {
    const c = this.core;
    return this.#withOut(1, (p) => {
      if (k.type === 'real') {
        this.#check(c._llmmem_hardware_get_real(p, hw, k.id), 'gpu', k.name);
        return this.#f64At(p);
      }
      this.#check(c._llmmem_hardware_get_int(p, hw, k.id), 'gpu', k.name);
      const v = this.#i64At(p);
      return k.type === 'choice' || k.type === 'bool' ? this.#str(c._llmmem_choice_name(k.id, v)) ?? exact(v) : exact(v);
    });
  }

  // ---- files ------------------------------------------------------------------------------

  /** Stores bytes (Uint8Array) or text as /input/<name> for a job's config, gguf or safetensors
   * path; `name` may hold one folder ("ckpt/config.json"). Returns the path. With `size` larger than
   * the bytes given, the file is that long but holds only its first bytes: the start of a dropped
   * file (its header, read with Blob.slice) stands for the whole, whose length the readers check
   * against the data the header describes. Reading past the bytes given fails with EIO, so a header
   * longer than the bytes given is an LLMMEM_ERR_IO naming the offset, never a read of made-up bytes. */
  putFile(name, data, size) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?$/.test(name) || name.split('/').some((p) => p === '.' || p === '..'))
      throw new LLMMemError(ERR_INVALID_ARGUMENT, `putFile: '${name}' is not a file name (letters, digits, '.', '_', '-', and at most one '/')`, 'job');
    const FS = this.core.FS, path = `${INPUT_DIR}/${name}`;
    for (const dir of [INPUT_DIR, ...(name.includes('/') ? [`${INPUT_DIR}/${name.split('/')[0]}`] : [])])
      if (!FS.analyzePath(dir).exists) FS.mkdir(dir);
    if (FS.analyzePath(path).exists) FS.unlink(path); // a new node: none of an earlier file's length
    FS.writeFile(path, data);
    const node = FS.lookupPath(path).node, stored = node.usedBytes;
    if (size != null && size > stored) {
      if (!Number.isSafeInteger(size))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `putFile: size ${size} is not a whole number of bytes`, 'job');
      node.usedBytes = size; // the length stat() reports (emscripten's MEMFS)
      const read = node.stream_ops.read;
      node.stream_ops = { ...node.stream_ops, read(stream, buffer, offset, length, position) {
        if (position >= stored) throw new FS.ErrnoError(EIO);
        return read(stream, buffer, offset, Math.min(length, stored - position), position);
      } };
    }
    return path;
  }

  /** Removes every file putFile stored. */
  clearFiles() {
    const FS = this.core.FS;
    const remove = (dir) => {
      for (const entry of FS.readdir(dir)) {
        if (entry === '.' || entry === '..') continue;
        const path = `${dir}/${entry}`;
        if (FS.isDir(FS.stat(path).mode)) { remove(path); FS.rmdir(path); } else FS.unlink(path);
      }
    };
    if (FS.analyzePath(INPUT_DIR).exists) remove(INPUT_DIR);
  }

  #exists(path) { return this.core.FS.analyzePath(path).exists; }

  // ---- jobs ---------------------------------------------------------------------------------

  // The CLI's checks of its arguments (cli_parse_args), in its order and with its words: an option
  // the command does not take, two model sources, a set without '=', plan without devices, and the
  // numbers (the CLI's read_numbers). Returns { length, devices, top } as BigInt (or undefined).
  #checkJob(command, job) {
    const option = (name) => (name === 'sets' ? '--set' : `--${name}`);
    if (typeof job !== 'object' || job === null || Array.isArray(job))
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'a job is an object of options ({ model, gpu, sets, ... })', 'job');
    for (const [name, v] of Object.entries(job)) {
      if (!OPTIONS.some(([o]) => o === name))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `unknown option '--${name}' (try 'llmmem --help')`, 'job');
      const number = name === 'length' || name === 'devices' || name === 'top';
      const ok = v == null || (name === 'sets' ? Array.isArray(v) && v.every((x) => typeof x === 'string')
        : typeof v === 'string' || (number && (typeof v === 'number' || typeof v === 'bigint')));
      if (!ok)
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `${option(name)}: expected ${name === 'sets' ? 'a list of KEY=VALUE texts' : number ? 'a number or its text' : 'a text'}`, name);
    }
    for (const set of job.sets || [])
      if (!set.includes('='))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `--set expects KEY=VALUE, got '${set.slice(0, 64)}'`, `set:${set}`);
    if ((job.model != null) + (job.config != null) + (job.gguf != null) > 1)
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'give one of --model, --config and --gguf', 'model');
    if (job.gguf != null && job.safetensors != null)
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'give --gguf or --safetensors, not both', 'safetensors');
    for (const [name, commands] of OPTIONS)
      if (job[name] != null && !(name === 'sets' && !job.sets.length) && !commands.includes(command))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `option '${option(name)}' does not apply to '${command}'`, name);
    if (command === 'plan' && job.devices == null)
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'plan needs --devices N', 'devices');
    return { length: job.length == null ? undefined : this.#length(job), devices: this.#devices(job), top: this.#top(job) };
  }

  // ---- handles ------------------------------------------------------------------------------

  // Runs use(handle) on a handle made by make(), freeing it after.
  #withHandle(kind, make, use) {
    const h = make();
    try { return use(h); } finally { this.core[`_llmmem_${kind}_free`](h); }
  }

  // A handle the core made through its out-parameter (the core leaves none behind on failure).
  #made(fn, field, context) {
    return this.#withOut(1, (out) => {
      this.#check(fn(out), field, context);
      return this.#ptrAt(out);
    });
  }

  // A whole number given to an option, read as the CLI's read_number reads it: by llmmem_parse_int
  // (so "8K" and "1e3" are numbers), within lo..hi, with the CLI's messages.
  #number(value, option, note, lo, hi) {
    const c = this.core, text = String(value), name = note ? `${option} (${note})` : option;
    const field = option.slice(2);
    return this.#withStrings([text], (t) => this.#withOut(1, (p) => {
      const st = c._llmmem_parse_int(p, t), v = this.#i64At(p);
      if (st === OK && v >= lo && v <= hi) return v;
      if (st !== OK && st !== ERR_OUT_OF_RANGE) {
        const why = this.#str(c._llmmem_last_message());
        throw new LLMMemError(st, `${name}: ${why || 'not a whole number'}`, field);
      }
      const shown = text.length > 64 ? `${text.slice(0, 64)}...` : text;
      throw new LLMMemError(ERR_OUT_OF_RANGE, `${name}: '${shown}' is out of range: ${lo} to ${hi}`, field);
    }));
  }

  // --length, --devices and --top of a job, as BigInt (the CLI's read_numbers).
  #length(job) {
    const c = this.core;
    return this.#withStrings([KEY.requestTokens], (n) => this.#withOut(3, (p) => {
      this.#check(c._llmmem_key_from_name(p, n), 'length', KEY.requestTokens);
      this.#check(c._llmmem_key_bounds(p + 8, p + 16, this.#i32At(p)), 'length', KEY.requestTokens);
      return this.#number(job.length, '--length', KEY.requestTokens, this.#i64At(p + 8), this.#i64At(p + 16));
    }));
  }
  #devices(job) { return job.devices == null ? BigInt(DEFAULTS.devices) : this.#number(job.devices, '--devices', null, 1n, PLAN_MAX_DEVICES); }
  #top(job) { return job.top == null ? BigInt(DEFAULTS.top) : this.#number(job.top, '--top', null, 0n, INT64_MAX); }

  #hardware(name, field) {
    return this.#withStrings([name], (n) => this.#made((out) => this.core._llmmem_hardware_from_preset(out, n), field, 'llmmem_hardware_from_preset'));
  }

  #checkpoint(path, field) {
    const fn = field === 'gguf' ? '_llmmem_checkpoint_from_gguf' : '_llmmem_checkpoint_from_safetensors';
    return this.#withStrings([path], (p) => this.#made((out) => this.core[fn](out, p), field, 'llmmem_checkpoint_from'));
  }

  // The model of a job, as the CLI's make_model: --gguf's metadata, else a config.json (a
  // safetensors folder's own when neither --model nor model_type is given), else an empty model
  // when the sets give model_type without --model, else the preset.
  #model(job) {
    const c = this.core;
    if (job.gguf != null) {
      const ck = this.#checkpoint(job.gguf, 'gguf');
      try { return this.#made((out) => c._llmmem_checkpoint_model(out, ck), 'gguf', 'llmmem_checkpoint_model'); }
      finally { c._llmmem_checkpoint_free(ck); }
    }
    let config = job.config, field = 'config';
    const setsType = (job.sets || []).some((s) => s.split('=')[0] === 'model_type');
    if (config == null && job.model == null && job.safetensors != null && !setsType && this.#exists(`${job.safetensors}/config.json`)) {
      config = job.safetensors;
      field = 'safetensors';
    }
    if (config != null)
      return this.#withStrings([config], (p) => this.#made((out) => c._llmmem_model_from_hf_config(out, p), field, 'llmmem_model_from_hf_config'));
    if (job.model == null && setsType) return this.#made((out) => c._llmmem_model_new(out), 'model', 'llmmem_model_new');
    return this.#withStrings([job.model ?? DEFAULTS.model], (n) => this.#made((out) => c._llmmem_model_from_preset(out, n), 'model', 'llmmem_model_from_preset'));
  }

  // The model, hardware and strategy of a job (the CLI's make_inputs), given to use(), then freed.
  #withInputs(command, job, use) {
    const c = this.core;
    this.warnings = [];
    const numbers = this.#checkJob(command, job);
    const h = { model: 0, hw: 0, strategy: 0 };
    try {
      h.model = this.#model(job);
      h.hw = this.#hardware(job.gpu ?? DEFAULTS.gpu, 'gpu');
      h.strategy = this.#made((out) => c._llmmem_strategy_new(out), 'job', 'llmmem_strategy_new');
      if (job.engine != null && !(command === 'serve' && job.engine === 'all'))
        this.#setText(h, KEY.engine, String(job.engine), 'engine');
      for (const set of job.sets || []) {
        const eq = set.indexOf('='); // present: #checkJob
        this.#setText(h, set.slice(0, eq), set.slice(eq + 1), `set:${set.slice(0, eq)}`);
      }
      return use(h, numbers);
    } finally {
      if (h.strategy) c._llmmem_strategy_free(h.strategy);
      if (h.hw) c._llmmem_hardware_free(h.hw);
      if (h.model) c._llmmem_model_free(h.model);
    }
  }

  // One KEY=VALUE to the object that owns the key, as the CLI's apply_sets.
  #setText(h, name, value, field) {
    const c = this.core;
    this.#withStrings([name, value], (n, v) => this.#withOut(1, (p) => {
      this.#check(c._llmmem_key_from_name(p, n), field, name);
      const key = this.#i32At(p);
      this.#check(c._llmmem_key_object(p, key), field, name);
      const object = this.#i32At(p);
      const set = object === 1 ? c._llmmem_model_set_text(h.model, n, v)
        : object === 2 ? c._llmmem_hardware_set_text(h.hw, n, v) : c._llmmem_strategy_set_text(h.strategy, n, v);
      this.#check(set, field, `--set ${name}=${value}`);
    }));
  }

  #strategyInt(strategy, name) {
    const c = this.core;
    return this.#withStrings([name], (n) => this.#withOut(1, (p) => {
      this.#check(c._llmmem_key_from_name(p, n), 'job', name);
      const key = this.#i32At(p);
      this.#check(c._llmmem_strategy_get_int(p, strategy, key), 'job', name);
      return this.#i64At(p);
    }));
  }

  #localEngine(strategy) {
    const e = this.#strategyInt(strategy, KEY.engine);
    return e === ENGINE_LLAMA_CPP || e === ENGINE_OLLAMA;
  }

  // With --safetensors or --gguf: the checkpoint's stored bytes become the model's weights after a
  // cross-check whose mismatch is a warning (the CLI's attach_checkpoint). Returns it, or 0.
  #attachCheckpoint(job, model) {
    const c = this.core;
    const field = job.gguf != null ? 'gguf' : job.safetensors != null ? 'safetensors' : null;
    if (!field) return 0;
    const ck = this.#checkpoint(job[field], field);
    try {
      const st = c._llmmem_checkpoint_verify(ck, model);
      if (st === ERR_INCOMPATIBLE)
        this.warnings.push(`the checkpoint does not match the model: ${this.#str(c._llmmem_last_message())}`);
      else this.#check(st, field, 'checkpoint');
      this.#check(c._llmmem_model_use_checkpoint(model, ck), field, 'checkpoint');
      return ck;
    } catch (e) {
      c._llmmem_checkpoint_free(ck);
      throw e;
    }
  }

  #withReport(job, h, use) {
    const c = this.core;
    const report = this.#made((out) => c._llmmem_report_new(out), 'job', 'llmmem_report_new');
    let ck = 0;
    try {
      ck = this.#attachCheckpoint(job, h.model);
      this.#check(c._llmmem_estimate(report, h.model, h.hw, h.strategy), 'job', 'estimate');
      return use(report);
    } finally {
      if (ck) c._llmmem_checkpoint_free(ck);
      c._llmmem_report_free(report);
    }
  }

  // ---- commands ---------------------------------------------------------------------------

  /** `llmmem estimate --json`: the report, with the step's timeline as "timeline". */
  estimate(job = {}) {
    const c = this.core;
    return this.#withInputs('estimate', job, (h) => this.#withReport(job, h, (report) => {
      const out = parseExact(this.#takeString((p) => c._llmmem_report_to_json(p, report), 'job', 'llmmem_report_to_json'));
      const tl = this.#made((p) => c._llmmem_timeline_new(p), 'job', 'llmmem_timeline_new');
      try {
        this.#check(c._llmmem_estimate_timeline(tl, h.model, h.hw, h.strategy), 'job', 'timeline');
        out.timeline = parseExact(this.#takeString((p) => c._llmmem_timeline_to_json(p, tl), 'job', 'llmmem_timeline_to_json'));
      } finally {
        c._llmmem_timeline_free(tl);
      }
      return out;
    }));
  }

  /** `llmmem explain`: the arithmetic of every line, as text. */
  explain(job = {}) {
    const c = this.core;
    return this.#withInputs('explain', job, (h) => this.#withReport(job, h, () =>
      this.#takeString((p) => c._llmmem_explain(p, h.model, h.hw, h.strategy), 'job', 'explain')));
  }

  /** `llmmem serve --json`: vLLM's budget and blocks, with engine llama.cpp/ollama what each device
   * of one machine holds, with engine sglang/trtllm their KV pools, and with engine 'all' every
   * engine's row side by side (llmmem_engines_to_json). */
  serve(job = {}) {
    const c = this.core;
    return this.#withInputs('serve', job, (h, n) => {
      if (job.engine === 'all') {
        if (job.length != null) this.#setRequestTokens(h, n.length);
        return this.#withLocalCheckpoint(job, (ck) => {
          const e = this.#made((p) => c._llmmem_engines_new(p), 'job', 'llmmem_engines_new');
          try {
            this.#check(c._llmmem_engines_estimate(e, h.model, ck, h.hw, h.strategy), 'job', 'serve');
            return parseExact(this.#takeString((p) => c._llmmem_engines_to_json(p, e), 'job', 'llmmem_engines_to_json'));
          } finally {
            c._llmmem_engines_free(e);
          }
        });
      }
      if (this.#localEngine(h.strategy)) {
        if (job.length != null)
          throw new LLMMemError(ERR_INVALID_ARGUMENT, '--length asks vLLM\'s concurrency question; with --engine llama.cpp or ollama set n_ctx, n_parallel (or num_ctx, num_parallel)', 'length');
        return this.#withLocalCheckpoint(job, (ck) => {
          const r = this.#made((p) => c._llmmem_local_new(p), 'job', 'llmmem_local_new');
          try {
            this.#check(c._llmmem_local_estimate(r, h.model, ck, h.hw, h.strategy), 'job', 'serve');
            return parseExact(this.#takeString((p) => c._llmmem_local_to_json(p, r), 'job', 'llmmem_local_to_json'));
          } finally {
            c._llmmem_local_free(r);
          }
        });
      }
      const sv = this.#made((p) => c._llmmem_serving_new(p), 'job', 'llmmem_serving_new');
      let ck = 0;
      try {
        if (job.length != null) this.#setRequestTokens(h, n.length);
        ck = this.#attachCheckpoint(job, h.model);
        this.#check(c._llmmem_serving_estimate(sv, h.model, h.hw, h.strategy), 'job', 'serve');
        return parseExact(this.#takeString((p) => c._llmmem_serving_to_json(p, sv), 'job', 'llmmem_serving_to_json'));
      } finally {
        if (ck) c._llmmem_checkpoint_free(ck);
        c._llmmem_serving_free(sv);
      }
    });
  }

  // --length: the request_tokens the concurrency answers for.
  #setRequestTokens(h, length) {
    const c = this.core;
    this.#withStrings([KEY.requestTokens], (name) => this.#withOut(1, (p) => {
      this.#check(c._llmmem_key_from_name(p, name), 'length', KEY.requestTokens);
      this.#check(c._llmmem_strategy_set_int(h.strategy, this.#i32At(p), length), 'length', '--length');
    }));
  }

  // With --gguf, the checkpoint whose tensors llama.cpp places (0 without it).
  #withLocalCheckpoint(job, use) {
    if (job.gguf == null) return use(0);
    const ck = this.#checkpoint(job.gguf, 'gguf');
    try { return use(ck); } finally { this.core._llmmem_checkpoint_free(ck); }
  }

  /** `llmmem fit --json`: with engine llama.cpp/ollama the most GPU layers, the longest context and
   * the most parallel sequences that fit; otherwise the largest micro-batch, the longest sequence,
   * the least compressed weight format and the fewest devices (0: none; format null: none fits). */
  fit(job = {}) {
    const c = this.core;
    return this.#withInputs('fit', job, (h, n) => {
      const name = this.#str(c._llmmem_model_name(h.model)), hardware = this.#str(c._llmmem_hardware_name(h.hw));
      if (this.#localEngine(h.strategy)) {
        return this.#withLocalCheckpoint(job, (ck) => {
          const out = { model: name, hardware, engine: this.#strategyInt(h.strategy, KEY.engine) === ENGINE_OLLAMA ? 'ollama' : 'llama.cpp',
            fit_margin_bytes: exact(this.#strategyInt(h.strategy, KEY.fitMargin)) };
          for (const [q, id] of LOCAL_QUESTIONS)
            out[q] = this.#withOut(1, (p) => {
              this.#check(c._llmmem_local_solve(p, id, h.model, ck, h.hw, h.strategy), 'job', 'fit');
              return exact(this.#i64At(p));
            });
          return out;
        });
      }
      const countOnly = this.#withStrings([KEY.numParameters], (n) => this.#withOut(1, (p) =>
        c._llmmem_key_from_name(p, n) === OK && c._llmmem_model_get_int(p, h.model, this.#i32At(p)) === OK && this.#i64At(p) !== 0n));
      if (countOnly)
        throw new LLMMemError(ERR_INCOMPLETE, 'fit needs the model\'s shapes: a model given by num_parameters alone has no activations, KV cache or layers for fit to size (use \'llmmem estimate\' for its weights)', 'model');
      const maxDevices = n.devices;
      return this.#withOut(4, (p) => {
        this.#check(c._llmmem_solve_max_micro_batch(p, h.model, h.hw, h.strategy), 'job', 'fit');
        this.#check(c._llmmem_solve_max_sequence_length(p + 8, h.model, h.hw, h.strategy), 'job', 'fit');
        const formatStatus = c._llmmem_solve_weight_format(p + 16, h.model, h.hw, h.strategy);
        if (formatStatus !== ERR_NOT_FOUND) this.#check(formatStatus, 'job', 'fit');
        this.#check(c._llmmem_solve_min_devices(p + 24, h.model, h.hw, h.strategy, maxDevices), 'devices', 'fit');
        const format = formatStatus === OK ? this.#withStrings([KEY.weightFormat], (n) => this.#withOut(1, (k) => {
          this.#check(c._llmmem_key_from_name(k, n), 'job', KEY.weightFormat);
          return this.#str(c._llmmem_choice_name(this.#i32At(k), BigInt(this.#i32At(p + 16))));
        })) : null;
        return { model: name, hardware, micro_batch_size: exact(this.#u64At(p)), sequence_length: exact(this.#u64At(p + 8)),
          weight_format: format, min_devices: exact(this.#u64At(p + 24)), max_devices: exact(maxDevices) };
      });
    });
  }

  /** `llmmem plan --json`: the cheapest `top` layouts of `devices` GPUs that fit. */
  plan(job = {}) {
    const c = this.core;
    return this.#withInputs('plan', job, (h, n) => {
      const plan = this.#made((p) => c._llmmem_plan_new(p), 'job', 'llmmem_plan_new');
      try {
        // --top is read as on a 64-bit host; past wasm32's SIZE_MAX it keeps every layout, as it would there
        const top = n.top > SIZE_MAX ? SIZE_MAX : n.top;
        this.#check(c._llmmem_plan_set_limit(plan, Number(top)), 'top', 'llmmem_plan_set_limit');
        this.#check(c._llmmem_plan_run(plan, h.model, h.hw, h.strategy, n.devices), 'job', 'plan');
        return parseExact(this.#takeString((p) => c._llmmem_plan_to_json(p, plan), 'job', 'llmmem_plan_to_json'));
      } finally {
        c._llmmem_plan_free(plan);
      }
    });
  }

  /** The CLI arguments of the same job: `llmmem ${argv(command, job).join(' ')}`. */
  argv(command, job = {}) {
    const a = [command];
    for (const [opt, v] of [['--model', job.model], ['--config', job.config], ['--gguf', job.gguf],
      ['--safetensors', job.safetensors], ['--gpu', job.gpu], ['--engine', job.engine], ['--length', job.length],
      ['--devices', job.devices], ['--top', job.top]])
      if (v != null) a.push(opt, String(v));
    for (const s of job.sets || []) a.push('--set', s);
    if (command !== 'explain') a.push('--json');
    return a;
  }
}
