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
// It is a plain object read once (readJob): texts without NUL or lone surrogates, of at most one
// command-line argument's length; length, devices and top as a safe integer, a BigInt or a text;
// null or undefined for an option not given. Anything else is an LLMMemError naming the option.
import createLLMMemCore from './llmmem-core.js';

// The CLI's defaults (cli/args.h: CLI_DEFAULT_MODEL, CLI_DEFAULT_GPU, CLI_DEFAULT_FIT_DEVICES,
// CLI_DEFAULT_TOP); the browser tests check that an empty job gives the CLI's answer.
export const DEFAULTS = Object.freeze({ model: 'llama-3.1-8b', gpu: 'h100-sxm-80gb', devices: 1024, top: 10 });
// The folder of the module's file system putFile stores files in: the paths it returns start with
// it, and so does the name of a model read from one (a model is named by the path it was read from).
export const INPUT_DIR = '/input';

// The enums of include/llmmem/llmmem.h this file passes or reads.
const OBJECT_NAMES = { 1: 'model', 2: 'hardware', 3: 'strategy' };
const TYPE_NAMES = { 1: 'int', 2: 'bool', 3: 'choice', 4: 'real', 5: 'flags', 6: 'list' };
const TYPE_INT = 1, TYPE_CHOICE = 3, TYPE_REAL = 4, TYPE_FLAGS = 5, TYPE_LIST = 6;
// llmmem_status, by value (an append-only enum): LLMMemError.status names it.
const STATUS = ['LLMMEM_OK', 'LLMMEM_ERR_INVALID_ARGUMENT', 'LLMMEM_ERR_OUT_OF_RANGE', 'LLMMEM_ERR_UNKNOWN_KEY',
  'LLMMEM_ERR_NOT_FOUND', 'LLMMEM_ERR_INCOMPATIBLE', 'LLMMEM_ERR_OVERFLOW', 'LLMMEM_ERR_NO_MEMORY', 'LLMMEM_ERR_IO',
  'LLMMEM_ERR_PARSE', 'LLMMEM_ERR_UNSUPPORTED', 'LLMMEM_ERR_INCOMPLETE'];
const OK = 0, ERR_INVALID_ARGUMENT = 1, ERR_OUT_OF_RANGE = 2, ERR_NOT_FOUND = 4, ERR_INCOMPATIBLE = 5,
  ERR_NO_MEMORY = 7, ERR_UNSUPPORTED = 10, ERR_INCOMPLETE = 11;
const ENGINE_LLAMA_CPP = 2n, ENGINE_OLLAMA = 3n;
const KEY = { engine: 'engine', fitMargin: 'fit_margin_bytes', requestTokens: 'request_tokens', weightFormat: 'weight_format', numParameters: 'num_parameters',
  expandableSegments: 'expandable_segments' };
const LOCAL_QUESTIONS = [['max_gpu_layers', 0], ['max_context', 1], ['max_parallel', 2]]; // llmmem_local_question
// The job's options in the CLI's order (cli/args.c cli_option_table) and the commands
// that take each: a job is refused as `llmmem` refuses the same arguments.
const OPTIONS = [
  ['model', ['estimate', 'explain', 'serve', 'fit', 'plan', 'timeline']], ['gpu', ['estimate', 'explain', 'serve', 'fit', 'plan', 'timeline']],
  ['sets', ['estimate', 'explain', 'serve', 'fit', 'plan', 'timeline']], ['safetensors', ['estimate', 'explain', 'serve', 'timeline']],
  ['config', ['estimate', 'explain', 'serve', 'fit', 'plan', 'timeline']], ['gguf', ['estimate', 'explain', 'serve', 'fit', 'plan', 'timeline']],
  ['length', ['serve']], ['devices', ['fit', 'plan']], ['top', ['plan']], ['engine', ['serve', 'fit']],
];
const EIO = 29; // emscripten's errno numbering (WASI)
const PLAN_MAX_DEVICES = 16777216n; // LLMMEM_PLAN_MAX_DEVICES
const INT64_MAX = 0x7fffffffffffffffn, SIZE_MAX = 0xffffffffn; // SIZE_MAX: wasm32's size_t
const COMMANDS = ['estimate', 'explain', 'serve', 'fit', 'plan'];
const NUMBER_OPTIONS = ['length', 'devices', 'top'];
// The longest text a job may hold, in UTF-8 bytes: the longest argument `llmmem` can be given
// (Linux's MAX_ARG_STRLEN, include/uapi/linux/binfmts.h: 32 pages of 4 KiB).
const MAX_TEXT_BYTES = 131072;
// The most `sets` a job may hold: each of the 249 keys set a dozen times over; a longer list is a
// program's mistake, refused before any work (each set costs the core about 3 us).
const MAX_SETS = 4096;
const UTF8 = new TextEncoder(); // well-formed UTF-8 (emscripten's stringToUTF8 pairs a lone surrogate with the next character)

// A text as messages quote it: its first 64 characters ("..." after), control characters and lone
// surrogates written as \uXXXX, so that a message is printable and names what was given.
function shown(text) {
  return (text.length > 64 ? `${text.slice(0, 64)}...` : text)
    .replace(/[\0-\x1f\x7f]|[\uD800-\uDFFF]/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// What a value is, for a message about a value of the wrong type ("a number", "an array").
function kindOf(v) {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  if (t !== 'object') return `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`;
  try { return `an object (${Object.prototype.toString.call(v).slice(8, -1)})`; } catch { return 'an object'; } // a Proxy's trap may throw
}

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
  if (typeof options !== 'object' || options === null)
    throw invalid(`load: the options are ${kindOf(options)}, not an object of emscripten's module options`, 'job');
  return new LLMMem(await createLLMMemCore(options));
}

// Whether a parsed value holds a number that may have been rounded: an integer past 2^53.
function rounded(v) {
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v);
  if (v && typeof v === 'object') for (const k in v) if (rounded(v[k])) return true;
  return false;
}

// JSON's tokens that hold digits: a string (skipped whole, escapes included) or a number.
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

// JSON from the core with every integer exact: one past 2^53 becomes a BigInt. The usual answer
// has none and is parsed once; otherwise each such literal becomes the string "\u0000DIGITS",
// written as its escape (a raw control character is not valid inside a JSON string), and is turned
// back by the reviver. No string of the core starts with U+0000: C strings end at their NUL.
function parseExact(text) {
  const plain = JSON.parse(text);
  if (!rounded(plain)) return plain;
  let out = '', last = 0;
  for (const m of text.matchAll(JSON_TOKEN)) {
    const t = m[0];
    if (t[0] === '"' || /[.eE]/.test(t) || Number.isSafeInteger(Number(t))) continue;
    out += `${text.slice(last, m.index)}"\\u0000${t}"`;
    last = m.index + t.length;
  }
  return JSON.parse(out + text.slice(last), (k, v) =>
    typeof v === 'string' && v[0] === '\u0000' ? BigInt(v.slice(1)) : v);
}

// A value read from the core as a JS number when exact, else a BigInt.
function exact(big) {
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

const invalid = (message, field) => new LLMMemError(ERR_INVALID_ARGUMENT, message, field);
const optionName = (name) => (name === 'sets' ? '--set' : `--${name}`);
// A set's field: 'set:' and its key (the text before '=', cut as messages cut it).
const setField = (set) => `set:${shown(set.split('=')[0])}`;

// The bytes of a file given to putFile: a text (as UTF-8, refused with a lone surrogate, as Python
// refuses such a str), an ArrayBuffer or a view of one (Uint8Array, Buffer, DataView).
function fileBytes(name, data) {
  if (typeof data === 'string') {
    const lone = data.search(/[\uD800-\uDFFF]/u);
    if (lone >= 0) throw invalid(`putFile: the text of '${name}' cannot be encoded as UTF-8: a lone surrogate (character ${lone})`, 'job');
    return UTF8.encode(data);
  }
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalid(`putFile: the data of '${name}' must be a text, an ArrayBuffer or a Uint8Array, not ${kindOf(data)}`, 'job');
}

// A text for the core, as the Python binding checks one (_checked_text): a C string ends at its
// first NUL, so a NUL would cut the text silently; a lone surrogate has no UTF-8 form. Both are
// refused, as is a text longer than any argument of the command line.
function checkedText(what, text, field) {
  if (typeof text !== 'string') throw invalid(`${what}: expected a text, not ${kindOf(text)}`, field);
  if (text.length > MAX_TEXT_BYTES || UTF8.encode(text).length > MAX_TEXT_BYTES)
    throw invalid(`${what}: a text of ${text.length} characters is longer than a command-line argument may be (${MAX_TEXT_BYTES} bytes of UTF-8)`, field);
  if (text.includes('\0')) throw invalid(`${what} '${shown(text)}' contains a NUL character`, field);
  const lone = text.search(/[\uD800-\uDFFF]/u); // with /u a surrogate pair is one code point: only a lone half matches
  if (lone >= 0) throw invalid(`${what} '${shown(text)}' cannot be encoded as UTF-8: a lone surrogate (character ${lone})`, field);
  return text;
}

// A whole-number option (length, devices, top): a Number that is a safe integer, a BigInt, or a
// text the core parses as the CLI does ("8K"). A Number past 2^53 may have been rounded already.
function checkedNumber(name, v) {
  const what = optionName(name);
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw invalid(`${what}: ${v} is not a whole number`, name);
    if (!Number.isSafeInteger(v)) throw invalid(`${what}: ${v} is past 2^53, where a Number may have been rounded: give a BigInt or a text`, name);
    return v;
  }
  if (typeof v !== 'string') throw invalid(`${what}: expected a number or its text, not ${kindOf(v)}`, name);
  return checkedText(what, v, name);
}

// The sets, copied element by element (a getter or a Proxy is read once), each a KEY=VALUE text.
function checkedSets(v) {
  if (!Array.isArray(v)) throw invalid(`--set: expected a list of KEY=VALUE texts, not ${kindOf(v)}`, 'sets');
  const n = v.length;
  if (n > MAX_SETS) throw invalid(`--set: ${n} sets are more than a job may hold (${MAX_SETS})`, 'sets');
  const sets = [];
  for (let i = 0; i < n; i++) {
    const set = v[i];
    if (typeof set !== 'string') throw invalid(`--set: expected a list of KEY=VALUE texts, not ${kindOf(set)} (item ${i})`, 'sets');
    sets.push(checkedText('--set', set, setField(set)));
  }
  return sets;
}

// A job read once into a plain object of checked values, so that the checks and the core see the
// same values whatever getters, Proxies or inherited properties the object has: its own enumerable
// options only, each read once; null or undefined is an option not given. Anything thrown while
// reading becomes an LLMMemError naming the option.
function readJob(job) {
  let name = 'job';
  try {
    const proto = typeof job === 'object' && job !== null ? Object.getPrototypeOf(job) : undefined;
    if (Array.isArray(job) || (proto !== Object.prototype && proto !== null)) {
      const what = proto === undefined || Array.isArray(job) ? kindOf(job) : `${kindOf(job)} whose prototype is not Object.prototype`;
      throw invalid(`a job is a plain object of options ({ model, gpu, sets, ... }), not ${what}`, 'job');
    }
    const out = {};
    for (const key of Object.keys(job)) {
      if (!OPTIONS.some(([o]) => o === key)) // the CLI's message, its '%.64s' cut
        throw invalid(`unknown option '${shown(`--${key}`.slice(0, 64))}' (try 'llmmem --help')`, 'job');
      name = key;
      const v = job[key];
      if (v == null) continue;
      out[key] = key === 'sets' ? checkedSets(v) : NUMBER_OPTIONS.includes(key) ? checkedNumber(key, v) : checkedText(optionName(key), v, key);
    }
    return out;
  } catch (e) {
    if (e instanceof LLMMemError) throw e;
    let why = 'an exception';
    try { why = String(e?.message ?? e); } catch { /* a thrown value that cannot be shown */ }
    throw invalid(`${name === 'job' ? 'the job' : optionName(name)} could not be read: ${shown(why)}`, name);
  }
}

class LLMMem {
  constructor(core) {
    this.core = core;
    this.version = this.#str(core._llmmem_version_string());
    /** What the last command would have printed on stderr as warnings (a checkpoint that does
     * not match its model), as the CLI's "warning: ..." lines without the prefix. */
    this.warnings = [];
    /** Why the last estimate was not replayed through PyTorch's caching allocator: what the CLI's
     * text prints after "allocator: not replayed: " (the library's message: the allocation tape
     * does not run the job, which keeps its estimate). null when it was replayed (its JSON's
     * "allocator" holds the answer), and after any other command. */
    this.notReplayed = null;
    this.#keyCache = null;
  }

  #keyCache;

  // ---- memory ------------------------------------------------------------------------------

  #str(ptr) { return ptr ? this.core.UTF8ToString(ptr) : null; }

  // Runs fn with a NUL-terminated UTF-8 copy of each text (checkedText's, or this file's own) in the
  // module's memory.
  #withStrings(texts, fn) {
    const ptrs = [];
    try {
      for (const t of texts) {
        const bytes = UTF8.encode(t), p = this.core._malloc(bytes.length + 1);
        if (!p) throw new LLMMemError(ERR_NO_MEMORY, 'out of memory', 'job');
        ptrs.push(p);
        this.core.HEAPU8.set(bytes, p);
        this.core.HEAPU8[p + bytes.length] = 0;
      }
      return fn(...ptrs);
    } finally {
      ptrs.forEach((p) => this.core._free(p));
    }
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

  /** Stores bytes (a Uint8Array or another view, an ArrayBuffer) or text (as UTF-8) as
   * /input/<name> for a job's config, gguf or safetensors path; `name` may hold one folder
   * ("ckpt/config.json"). Returns the path. With `size` (a whole number, at least the bytes given) larger than
   * the bytes given, the file is that long but holds only its first bytes: the start of a dropped
   * file (its header, read with Blob.slice) stands for the whole, whose length the readers check
   * against the data the header describes. Reading past the bytes given fails with EIO, so a header
   * longer than the bytes given is an LLMMEM_ERR_IO naming the offset, never a read of made-up bytes. */
  putFile(name, data, size) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?$/.test(name) || name.split('/').some((p) => p === '.' || p === '..'))
      throw invalid(`putFile: ${typeof name === 'string' ? `'${shown(name)}'` : kindOf(name)} is not a file name (letters, digits, '.', '_', '-', and at most one '/')`, 'job');
    const bytes = fileBytes(name, data);
    if (size != null && typeof size !== 'number' && typeof size !== 'bigint')
      throw invalid(`putFile: the size must be a number, not ${kindOf(size)}`, 'job');
    const fileSize = typeof size === 'bigint' ? Number(size) : size; // a BigInt past 2^53 stays past it
    if (size != null && !(Number.isSafeInteger(fileSize) && fileSize >= bytes.length))
      throw invalid(`putFile: size ${size} is not a whole number of bytes at least the ${bytes.length} given`, 'job');
    const FS = this.core.FS, path = `${INPUT_DIR}/${name}`;
    for (const dir of [INPUT_DIR, ...(name.includes('/') ? [`${INPUT_DIR}/${name.split('/')[0]}`] : [])])
      if (!FS.analyzePath(dir).exists) FS.mkdir(dir);
    if (FS.analyzePath(path).exists) FS.unlink(path); // a new node: none of an earlier file's length
    FS.writeFile(path, bytes);
    const node = FS.lookupPath(path).node, stored = node.usedBytes;
    if (size != null && fileSize > stored) {
      node.usedBytes = fileSize; // the length stat() reports (emscripten's MEMFS)
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

  // ---- jobs ---------------------------------------------------------------------------------

  // The CLI's checks of its arguments (cli_parse_args), in its order and with its words: an option
  // the command does not take, two model sources, a set without '=', plan without devices, and the
  // numbers (the CLI's read_numbers), on a job readJob has read. Returns { length, devices, top } as
  // BigInt (or undefined).
  #checkJob(command, job) {
    for (const set of job.sets || [])
      if (!set.includes('='))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `--set expects KEY=VALUE, got '${shown(set.slice(0, 64))}'`, setField(set));
    if ((job.model != null) + (job.config != null) + (job.gguf != null) > 1)
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'give one of --model, --config and --gguf', 'model');
    if (job.gguf != null && job.safetensors != null)
      throw new LLMMemError(ERR_INVALID_ARGUMENT, 'give --gguf or --safetensors, not both', 'safetensors');
    for (const [name, commands] of OPTIONS)
      if (job[name] != null && !(name === 'sets' && !job.sets.length) && !commands.includes(command))
        throw new LLMMemError(ERR_INVALID_ARGUMENT, `option '${optionName(name)}' does not apply to '${command}'`, name);
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
      throw new LLMMemError(ERR_OUT_OF_RANGE, `${name}: '${shown(text)}' is out of range: ${lo} to ${hi}`, field);
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
    return this.#withStrings([path], (p) => this.#made((out) => this.core[fn](out, p), field, path));
  }

  // The model of a job, and into h.ck the checkpoint of --gguf or --safetensors, each file read
  // once, as the CLI's model_of: a GGUF's metadata; a safetensors checkpoint's own (the config.json
  // of its folder, named by the path given) when neither --model nor --config is given and the sets
  // give no model_type; else the config.json of --config; an empty model when the sets give
  // model_type without --model; else the preset.
  #model(job, h) {
    const c = this.core;
    const field = job.gguf != null ? 'gguf' : job.safetensors != null ? 'safetensors' : null;
    if (field) h.ck = this.#checkpoint(job[field], field);
    const setsType = (job.sets || []).some((s) => s.split('=')[0] === 'model_type');
    if (field === 'gguf' || (field && job.config == null && job.model == null && !setsType)) {
      const [st, model] = this.#withOut(1, (out) => [c._llmmem_checkpoint_model(out, h.ck), this.#ptrAt(out)]);
      if (st === OK) return model;
      if (field === 'gguf') this.#check(st, field, job.gguf);
      throw new LLMMemError(st, `${this.#str(c._llmmem_last_message()) ?? ''}; or give the model: --model, --config or --set model_type=...`, field);
    }
    if (job.config != null)
      return this.#withStrings([job.config], (p) => this.#made((out) => c._llmmem_model_from_hf_config(out, p), 'config', 'llmmem_model_from_hf_config'));
    if (job.model == null && setsType) return this.#made((out) => c._llmmem_model_new(out), 'model', 'llmmem_model_new');
    return this.#withStrings([job.model ?? DEFAULTS.model], (n) => this.#made((out) => c._llmmem_model_from_preset(out, n), 'model', 'llmmem_model_from_preset'));
  }

  // The model, hardware and strategy of a job and its checkpoint (the CLI's make_inputs), given to
  // use() with the job's numbers and the job as readJob read it (the only copy the command may look
  // at), then freed.
  #withInputs(command, given, use) {
    const c = this.core;
    this.warnings = [];
    this.notReplayed = null;
    const job = readJob(given), numbers = this.#checkJob(command, job);
    const h = { model: 0, hw: 0, strategy: 0, ck: 0 };
    try {
      h.model = this.#model(job, h);
      h.hw = this.#hardware(job.gpu ?? DEFAULTS.gpu, 'gpu');
      h.strategy = this.#made((out) => c._llmmem_strategy_new(out), 'job', 'llmmem_strategy_new');
      if (job.engine != null && !(command === 'serve' && job.engine === 'all'))
        this.#setText(h, KEY.engine, String(job.engine), 'engine');
      for (const set of job.sets || []) {
        const eq = set.indexOf('='); // present: #checkJob
        this.#setText(h, set.slice(0, eq), set.slice(eq + 1), setField(set));
      }
      return use(h, numbers, job);
    } finally {
      if (h.strategy) c._llmmem_strategy_free(h.strategy);
      if (h.hw) c._llmmem_hardware_free(h.hw);
      if (h.model) c._llmmem_model_free(h.model);
      if (h.ck) c._llmmem_checkpoint_free(h.ck);
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

  // With --safetensors or --gguf (h.ck): the checkpoint's stored bytes become the model's weights
  // after a cross-check whose mismatch is a warning (the CLI's attach_checkpoint).
  #attachCheckpoint(job, h) {
    const c = this.core;
    if (!h.ck) return;
    const field = job.gguf != null ? 'gguf' : 'safetensors';
    const st = c._llmmem_checkpoint_verify(h.ck, h.model);
    if (st === ERR_INCOMPATIBLE)
      this.warnings.push(`the checkpoint does not match the model: ${this.#str(c._llmmem_last_message())}`);
    else this.#check(st, field, 'checkpoint');
    this.#check(c._llmmem_model_use_checkpoint(h.model, h.ck), field, 'checkpoint');
  }

  // The estimate of a job into a report given to use(); with `replay`, as `llmmem estimate` asks
  // it: the job replayed through PyTorch's caching allocator where the allocation tape runs it
  // (llmmem_estimate_runs), else the estimate and the reason in notReplayed.
  #withReport(job, h, use, replay = false) {
    const c = this.core;
    const report = this.#made((out) => c._llmmem_report_new(out), 'job', 'llmmem_report_new');
    try {
      this.#attachCheckpoint(job, h);
      const st = (replay ? c._llmmem_estimate_runs : c._llmmem_estimate)(report, h.model, h.hw, h.strategy);
      if (replay && st === ERR_UNSUPPORTED && c._llmmem_report_valid(report)) this.notReplayed = this.#str(c._llmmem_last_message());
      else this.#check(st, 'job', 'estimate');
      return use(report);
    } finally {
      c._llmmem_report_free(report);
    }
  }

  // ---- commands ---------------------------------------------------------------------------

  /** `llmmem estimate --json`: the report, with the step's timeline as "timeline". A job the
   * allocation tape runs is replayed through PyTorch's CUDA caching allocator: "allocator" gives
   * its peaks and whether the job runs ("fits" is that answer); for any other, notReplayed says why. */
  estimate(given = {}) {
    const c = this.core;
    return this.#withInputs('estimate', given, (h, n, job) => this.#withReport(job, h, (report) => {
      const out = parseExact(this.#takeString((p) => c._llmmem_report_to_json(p, report), 'job', 'llmmem_report_to_json'));
      const tl = this.#made((p) => c._llmmem_timeline_new(p), 'job', 'llmmem_timeline_new');
      try {
        this.#check(c._llmmem_estimate_timeline(tl, h.model, h.hw, h.strategy), 'job', 'timeline');
        out.timeline = parseExact(this.#takeString((p) => c._llmmem_timeline_to_json(p, tl), 'job', 'llmmem_timeline_to_json'));
      } finally {
        c._llmmem_timeline_free(tl);
      }
      return out;
    }, true));
  }

  /** `llmmem timeline --allocator --json`: the job as PyTorch's CUDA caching allocator serves it,
   * moment by moment (llmmem_estimate_timeline_runs): each point's `step`, its `total` (the highest
   * bytes allocated since the point before, by component in `bytes`) and `reserved` (the
   * allocator's segments plus the memory outside it). A job the allocation tape does not run
   * throws an LLMMemError (field 'job') with the library's reason, as notReplayed gives it. */
  timelineRuns(given = {}) {
    const c = this.core;
    return this.#withInputs('timeline', given, (h, n, job) => {
      const tl = this.#made((p) => c._llmmem_timeline_new(p), 'job', 'llmmem_timeline_new');
      try {
        this.#attachCheckpoint(job, h);
        this.#check(c._llmmem_estimate_timeline_runs(tl, h.model, h.hw, h.strategy), 'job', 'timeline');
        return parseExact(this.#takeString((p) => c._llmmem_timeline_to_json(p, tl), 'job', 'llmmem_timeline_to_json'));
      } finally {
        c._llmmem_timeline_free(tl);
      }
    });
  }

  /** `llmmem explain`: the arithmetic of every line, as text. */
  explain(given = {}) {
    const c = this.core;
    return this.#withInputs('explain', given, (h, n, job) => this.#withReport(job, h, () =>
      this.#takeString((p) => c._llmmem_explain(p, h.model, h.hw, h.strategy), 'job', 'explain')));
  }

  /** `llmmem serve --json`: vLLM's budget and blocks, with engine llama.cpp/ollama what each device
   * of one machine holds, with engine sglang/trtllm their KV pools, and with engine 'all' every
   * engine's row side by side (llmmem_engines_to_json). */
  serve(given = {}) {
    const c = this.core;
    return this.#withInputs('serve', given, (h, n, job) => {
      if (job.engine === 'all') {
        if (job.length != null) this.#setRequestTokens(h, n.length);
        const e = this.#made((p) => c._llmmem_engines_new(p), 'job', 'llmmem_engines_new');
        try {
          this.#check(c._llmmem_engines_estimate(e, h.model, this.#localCheckpoint(job, h), h.hw, h.strategy), 'job', 'serve');
          return parseExact(this.#takeString((p) => c._llmmem_engines_to_json(p, e), 'job', 'llmmem_engines_to_json'));
        } finally {
          c._llmmem_engines_free(e);
        }
      }
      if (this.#localEngine(h.strategy)) {
        if (job.length != null)
          throw new LLMMemError(ERR_INVALID_ARGUMENT, '--length asks vLLM\'s concurrency question; with --engine llama.cpp or ollama set n_ctx, n_parallel (or num_ctx, num_parallel)', 'length');
        const r = this.#made((p) => c._llmmem_local_new(p), 'job', 'llmmem_local_new');
        try {
          this.#check(c._llmmem_local_estimate(r, h.model, this.#localCheckpoint(job, h), h.hw, h.strategy), 'job', 'serve');
          return parseExact(this.#takeString((p) => c._llmmem_local_to_json(p, r), 'job', 'llmmem_local_to_json'));
        } finally {
          c._llmmem_local_free(r);
        }
      }
      const sv = this.#made((p) => c._llmmem_serving_new(p), 'job', 'llmmem_serving_new');
      try {
        if (job.length != null) this.#setRequestTokens(h, n.length);
        this.#attachCheckpoint(job, h);
        this.#check(c._llmmem_serving_estimate(sv, h.model, h.hw, h.strategy), 'job', 'serve');
        return parseExact(this.#takeString((p) => c._llmmem_serving_to_json(p, sv), 'job', 'llmmem_serving_to_json'));
      } finally {
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
  #localCheckpoint(job, h) { return job.gguf != null ? h.ck : 0; }

  /** `llmmem fit --json`: with engine llama.cpp/ollama the most GPU layers, the longest context and
   * the most parallel sequences that fit; otherwise the largest micro-batch, the longest sequence,
   * the least compressed weight format and the fewest devices (0: none; format null: none fits),
   * and for a job the allocation tape runs (the solvers' "fits" is then "runs") `replayed: true`
   * with the largest micro-batch and sequence under expandable_segments:True (0 when already on). */
  fit(given = {}) {
    const c = this.core;
    return this.#withInputs('fit', given, (h, n, job) => {
      const name = this.#str(c._llmmem_model_name(h.model)), hardware = this.#str(c._llmmem_hardware_name(h.hw));
      if (this.#localEngine(h.strategy)) {
        const ck = this.#localCheckpoint(job, h);
        const out = { model: name, hardware, engine: this.#strategyInt(h.strategy, KEY.engine) === ENGINE_OLLAMA ? 'ollama' : 'llama.cpp',
          fit_margin_bytes: exact(this.#strategyInt(h.strategy, KEY.fitMargin)) };
        for (const [q, id] of LOCAL_QUESTIONS)
          out[q] = this.#withOut(1, (p) => {
            this.#check(c._llmmem_local_solve(p, id, h.model, ck, h.hw, h.strategy), 'job', 'fit');
            return exact(this.#i64At(p));
          });
        return out;
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
        const out = { model: name, hardware, micro_batch_size: exact(this.#u64At(p)), sequence_length: exact(this.#u64At(p + 8)),
          weight_format: format, min_devices: exact(this.#u64At(p + 24)), max_devices: exact(maxDevices) };
        const expandable = this.#fitExpandable(h);
        return expandable ? { ...out, replayed: true, expandable_segments: expandable } : out;
      });
    });
  }

  // The CLI's fit_expandable: null when the allocation tape does not run the job; else the largest
  // micro-batch and sequence with expandable_segments:True (both 0 when the job has it on already).
  #fitExpandable(h) {
    const c = this.core;
    const report = this.#made((p) => c._llmmem_report_new(p), 'job', 'llmmem_report_new');
    let st;
    try { st = c._llmmem_estimate_runs(report, h.model, h.hw, h.strategy); } finally { c._llmmem_report_free(report); }
    if (st === ERR_UNSUPPORTED) return null;
    this.#check(st, 'job', 'fit');
    if (this.#strategyInt(h.strategy, KEY.expandableSegments) !== 0n) return { micro_batch_size: 0, sequence_length: 0 };
    const on = this.#made((p) => c._llmmem_strategy_clone(p, h.strategy), 'job', 'llmmem_strategy_clone');
    try {
      this.#withStrings([KEY.expandableSegments], (n) => this.#withOut(1, (p) => {
        this.#check(c._llmmem_key_from_name(p, n), 'job', KEY.expandableSegments);
        this.#check(c._llmmem_strategy_set_int(on, this.#i32At(p), 1n), 'job', 'fit');
      }));
      return this.#withOut(2, (p) => {
        this.#check(c._llmmem_solve_max_micro_batch(p, h.model, h.hw, on), 'job', 'fit');
        this.#check(c._llmmem_solve_max_sequence_length(p + 8, h.model, h.hw, on), 'job', 'fit');
        return { micro_batch_size: exact(this.#u64At(p)), sequence_length: exact(this.#u64At(p + 8)) };
      });
    } finally {
      c._llmmem_strategy_free(on);
    }
  }

  /** `llmmem plan --json`: the cheapest `top` layouts of `devices` GPUs that fit. */
  plan(given = {}) {
    const c = this.core;
    return this.#withInputs('plan', given, (h, n) => {
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
  argv(command, given = {}) {
    if (!COMMANDS.includes(command))
      throw invalid(`argv: ${typeof command === 'string' ? `'${shown(command)}' is not a command` : `the command is ${kindOf(command)}, not a text`} (${COMMANDS.join(', ')})`, 'job');
    const job = readJob(given), a = [command];
    for (const [opt, v] of [['--model', job.model], ['--config', job.config], ['--gguf', job.gguf],
      ['--safetensors', job.safetensors], ['--gpu', job.gpu], ['--engine', job.engine], ['--length', job.length],
      ['--devices', job.devices], ['--top', job.top]])
      if (v != null) a.push(opt, String(v));
    for (const s of job.sets || []) a.push('--set', s);
    if (command !== 'explain') a.push('--json');
    return a;
  }
}
