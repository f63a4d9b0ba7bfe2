// Browser tests of the web page (examples/web, built into a site folder): Debian's chromium,
// headless, driven by playwright-core. Each job is set through the page's form; every number
// the page shows (each element with data-src, data-path, data-value) is compared with the same
// field of `llmmem <command> ... --json` for the same job, run by the CLI in $LLMMEM_CLI; the
// explanation with `llmmem explain`. Also: dropped config.json and GGUF files, the link round
// trip, and bad input (the library's message beside the field, the page not blank). A screenshot
// of each state goes to $LLMMEM_WEB_SCREENSHOTS; every comparison is printed. Exit status 1 on
// any difference.
//
//   node tests/web/browser_test.mjs SITE_DIR     (env: LLMMEM_CLI, LLMMEM_WEB_SCREENSHOTS, CHROMIUM)
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { llamaQ4KM, writeGguf } from './gguf.mjs';
import { writeCheckpoint } from './safetensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const site = path.resolve(process.argv[2] || process.env.LLMMEM_WEB_SITE || '');
const CLI = process.env.LLMMEM_CLI;
const shots = path.resolve(process.env.LLMMEM_WEB_SCREENSHOTS || path.join(process.cwd(), 'tests/web/screenshots'));
const CONFIGS = path.resolve(here, '../data/configs');
if (!CLI || (!process.env.LLMMEM_WEB_URL && !fs.existsSync(path.join(site, 'index.html')))) {
  console.error('usage: LLMMEM_CLI=build/cli/llmmem node tests/web/browser_test.mjs build/examples/web/site');
  process.exit(2);
}
fs.mkdirSync(shots, { recursive: true });
for (const f of fs.readdirSync(shots)) if (f.endsWith('.png')) fs.rmSync(path.join(shots, f));   // this run's states only
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'llmmem-web-'));
const t0 = Date.now();

// ---- the site, from 127.0.0.1 on a free port ----
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.png': 'image/png' };
const server = http.createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = path.join(site, p.endsWith('/') ? p + 'index.html' : p);
  if (!file.startsWith(site)) { res.writeHead(403).end(); return; }
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' }).end(data);
  });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
// LLMMEM_WEB_URL: test a site served elsewhere instead
const base = process.env.LLMMEM_WEB_URL || `http://127.0.0.1:${server.address().port}/`;

// ---- the CLI ----
// JSON with integers past 2^53 kept exact (as strings; the page's data-value holds the digits).
function parseExact(text) {
  return JSON.parse(text.replace(/("(?:[^"\\]|\\.)*")|(-?\d{16,})(?![.\deE])/g, (m, s) => s || `"${m}"`));
}
function cliRun(argv) {
  const r = spawnSync(CLI, argv, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { rc: r.status, stdout: r.stdout, stderr: r.stderr };
}
const COMMAND = { inference: 'estimate', training: 'estimate', lora: 'estimate', qlora: 'estimate', vllm: 'serve', llamacpp: 'serve', ollama: 'serve', engines: 'serve' };
const ENGINE = { llamacpp: 'llama.cpp', ollama: 'ollama', engines: 'all' };
const MODESET = { inference: 'inference', training: 'training', lora: 'lora', qlora: 'qlora' };
// The CLI arguments of a job as this test describes it (independently of the page's lm.argv).
function argvOf(command, job) {
  const a = [command];
  if (job.configFile) a.push('--config', job.configFile);
  else if (job.configText !== undefined) a.push('--config', job.configTextFile);
  else if (job.gguf) a.push('--gguf', job.gguf);
  else if (job.safetensors) a.push('--safetensors', job.safetensors.index);   // the file the page gives
  else a.push('--model', job.model || 'llama-3.1-8b');
  a.push('--gpu', job.gpu || 'h100-sxm-80gb');
  if (ENGINE[job.mode] && (command === 'serve' || command === 'fit')) a.push('--engine', ENGINE[job.mode]);
  if (job.length && command === 'serve') a.push('--length', job.length);
  if (command === 'plan') a.push('--devices', job.plan, '--top', '10');
  if (command === 'timeline') a.push('--allocator');   // the page's timeline of a replayed job: lm.timelineRuns
  if (MODESET[job.mode]) a.push('--set', `mode=${MODESET[job.mode]}`);
  // the library's key order (model, hardware, strategy keys), as `llmmem keys` lists them
  const sets = [...(job.sets || [])].sort((x, y) => keyOrder.indexOf(x[0]) - keyOrder.indexOf(y[0]));
  for (const [k, v] of sets) a.push('--set', `${k}=${v}`);
  if (command !== 'explain') a.push('--json');
  return a;
}
const keyOrder = cliRun(['keys']).stdout.split('\n').filter((l) => /^\S/.test(l)).map((l) => l.trim());
// The file a command line reads (after --config, --gguf or --safetensors), or null.
const FILE_OPTIONS = ['--config', '--gguf', '--safetensors'];
function fileOf(argv) {
  const i = argv.findIndex((a) => FILE_OPTIONS.includes(a));
  return i >= 0 ? argv[i + 1] : null;
}
function at(obj, p) {
  let o = obj;
  for (const k of p.split('.')) { if (o === null || o === undefined) return undefined; o = o[k]; }
  return o;
}

// ---- the browser ----
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
// Every wait and action: a hang guard (each takes well under a second) that a loaded machine does not reach.
context.setDefaultTimeout(120000);
let failures = 0, comparisons = 0, jobsCompared = 0, shotNo = 0;
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };
const pageErrors = [];

async function openPage(url = base) {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state !== 'loading');
  if (await page.evaluate(() => document.body.dataset.state) === 'fatal') throw new Error(await page.textContent('#fatal'));
  return page;
}
async function shot(page, name) {
  const file = path.join(shots, `${String(++shotNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot ${file}`);
  return file;
}
const seqOf = (page) => page.evaluate(() => Number(document.body.dataset.seq || 0));
// One input through the form: the visible field for a key, else the same key under "All keys".
async function setKey(page, key, value) {
  let input = page.locator(`[data-key="${key}"]`).filter({ visible: true }).first();
  if (!(await input.count())) {
    await page.locator('#allkeys > summary').click();
    await page.fill('#key-filter', key);
    input = page.locator(`[data-key="${key}"]`).filter({ visible: true }).first();
  }
  if (await input.evaluate((e) => e.tagName) === 'SELECT') await input.selectOption(value);
  else await input.fill(value);
}
async function setJob(page, job) {
  if (job.configFile) await page.setInputFiles('#files', job.configFile);
  else if (job.gguf) await page.setInputFiles('#files', job.gguf);
  else if (job.safetensors) await page.setInputFiles('#files', job.safetensors.files);
  else if (job.configText !== undefined) await page.fill('#config-text', job.configText);
  else await page.selectOption('#model', job.model || 'llama-3.1-8b');
  if (job.configFile || job.gguf || job.safetensors) await page.waitForFunction(() => document.querySelector('input[name=source][value=files]').checked && document.body.dataset.state !== 'reading');
  await page.selectOption('#gpu', job.gpu || 'h100-sxm-80gb');
  await page.selectOption('#mode', job.mode);
  for (const [k, v] of job.sets || []) await setKey(page, k, v);
  if (job.length) await page.fill('#length', job.length);
  if (job.plan) { await page.check('#plan'); await page.fill('#plan-devices', job.plan); }
  if (job.solve === false) await page.uncheck('#solve');
}

// Every value the page shows, against the CLI's JSON for the same job. A model read from a file is
// named by its path: the page's file (in the module, its command line's) stands for the CLI's.
async function compare(page, job) {
  const shown = await page.$$eval('[data-src][data-path]', (els) => els.map((e) => ({ src: e.dataset.src, path: e.dataset.path, value: e.dataset.value, testid: e.dataset.testid })));
  const shownArgv = (await page.textContent('#argv')).replace(/^llmmem /, '').split(' ');
  const pageFile = fileOf(shownArgv), cliFile = fileOf(argvOf(COMMAND[job.mode], job));
  const asCli = (v) => (pageFile !== null && v === pageFile ? cliFile : v);
  const bySrc = {};
  for (const s of shown) (bySrc[s.src] ||= []).push(s);
  if (!shown.length) fail(`${job.name}: the page shows no values`);
  const cli = {};
  for (const src of Object.keys(bySrc)) {
    const argv = argvOf(src, job);
    const r = cliRun(argv);
    console.log(`cli ${job.name}: llmmem ${argv.join(' ')} -> rc ${r.rc}`);
    if (r.rc !== 0) { fail(`${job.name}: llmmem ${argv.join(' ')}: ${r.stderr.trim()}`); continue; }
    cli[src] = parseExact(r.stdout);
  }
  let n = 0;
  for (const s of shown) {
    if (!cli[s.src]) continue;
    const want = at(cli[s.src], s.path);
    const ok = want !== undefined && (want === null || typeof want !== 'object') && String(want) === asCli(s.value);
    console.log(`compare ${job.name} ${s.src}:${s.path} page=${s.value}${asCli(s.value) !== s.value ? ` (${asCli(s.value)})` : ''} cli=${want === undefined ? '(missing)' : String(want)} ${ok ? 'ok' : 'DIFFERENT'}`);
    if (!ok) fail(`${job.name}: ${s.src}:${s.path} page ${s.value} cli ${String(want)}`);
    n++;
  }
  // the explanation: the text `llmmem explain` prints
  if (COMMAND[job.mode] === 'estimate') {
    const text = await page.textContent('#explain');
    const argv = argvOf('explain', job);
    const r = cliRun(argv);
    const ok = r.rc === 0 && (pageFile ? text.replaceAll(pageFile, cliFile) : text).trimEnd() === r.stdout.trimEnd() && text.trim() !== '';
    console.log(`compare ${job.name} explain (${text.split('\n').length} lines) ${ok ? 'ok' : 'DIFFERENT'}`);
    if (!ok) fail(`${job.name}: explain differs:\n--- page\n${text}\n--- llmmem ${argv.join(' ')}\n${r.stdout}${r.stderr}`);
    n++;
  }
  // the warnings the CLI prints on stderr (a checkpoint that does not match its model)
  {
    const argv = argvOf(COMMAND[job.mode], job);
    const strip = (w) => w.replace(/\S*\/(\S+\.(gguf|json|safetensors))/g, '$1');
    const want = cliRun(argv).stderr.split('\n').filter((l) => l.startsWith('llmmem: warning: ')).map((l) => strip(l.replace(/^llmmem: /, '')));
    const got = (await page.$$eval('[data-testid=warning]', (els) => els.map((e) => e.textContent))).map(strip);
    const ok = JSON.stringify(want) === JSON.stringify(got);
    console.log(`compare ${job.name} warnings page=${JSON.stringify(got)} cli=${JSON.stringify(want)} ${ok ? 'ok' : 'DIFFERENT'}`);
    if (!ok) fail(`${job.name}: warnings differ`);
    n++;
  }
  // a model read from a file: shown by the file's name (a dropped file's own, with '_' for any
  // character but letters, digits, '.', '_' and '-'), its path in the title
  if (pageFile) {
    const name = await page.locator(`[data-testid="${COMMAND[job.mode]}:model"]`).first().evaluate((e) => ({ text: e.textContent, title: e.title }));
    const want = job.configText !== undefined ? 'config.json' : path.basename(cliFile).replace(/[^A-Za-z0-9._-]/g, '_');
    const ok = name.text === want && name.title.startsWith(pageFile);
    console.log(`compare ${job.name} the model shown as "${name.text}" (title "${name.title}") ${ok ? 'ok' : `DIFFERENT: want "${want}"`}`);
    if (!ok) fail(`${job.name}: the model is shown as "${name.text}", not "${want}"`);
    n++;
  }
  // the command line the page shows, files aside
  const norm = (a) => a.map((x, i) => (FILE_OPTIONS.includes(a[i - 1]) ? '<file>' : x)).join(' ');
  const mine = norm(argvOf(COMMAND[job.mode], job));
  if (norm(shownArgv) !== mine) fail(`${job.name}: the page's command line '${shownArgv.join(' ')}' is not '${mine}'`);
  else console.log(`compare ${job.name} argv '${mine}' ok`);
  comparisons += n;
  jobsCompared++;
  return { n, srcs: Object.keys(bySrc), cli };
}

// Headings of the results shown over nothing: a box whose heading is visible holds a value.
async function emptyHeadings(page) {
  return page.$$eval('h2', (hs) => hs.filter((h) => h.offsetParent !== null)
    .filter((h) => { const box = h.parentElement; return box.id !== 'results' && !box.querySelector('[data-path]') && !box.querySelector('pre')?.textContent; })
    .map((h) => h.textContent));
}

// The timeline's colours: each part's colour is its component's, the same as in the per-device bars
// and their legend, and one colour is one component wherever it is drawn; the timeline's own legend
// names every part drawn, the peak and the phases.
async function checkTimeline(page, job, cli) {
  const drawn = await page.evaluate(() => {
    const colour = (e) => getComputedStyle(e)[e instanceof SVGElement ? 'fill' : 'backgroundColor'];
    const of = (sel) => [...document.querySelectorAll(sel)].map((e) => [e.closest('[data-component]')?.dataset.component ?? '(unnamed)', colour(e)]);
    return {
      parts: of('#bars .seg').concat(of('#legend .key-chip i'), of('#timeline .tl-seg'), of('#timeline-legend .key-chip[data-component] i')),
      timeline: [...new Set([...document.querySelectorAll('#timeline .tl-seg')].map((e) => e.dataset.component))],
      legend: [...document.querySelectorAll('#timeline-legend .key-chip[data-component]')].map((e) => e.dataset.component),
      legendText: document.querySelector('#timeline-legend')?.textContent ?? '',
      legendShown: !!document.querySelector('#timeline-legend')?.offsetParent,
      peak: document.querySelector('[data-testid=timeline-peak]')?.dataset.index,
      phases: [...document.querySelectorAll('#timeline .tl-phase')].map((g) => g.dataset.phase),
    };
  });
  const byColour = new Map(), byName = new Map(), wrong = [];
  for (const [name, colour] of drawn.parts) {
    if ((byColour.get(colour) ?? name) !== name) wrong.push(`${colour} is both ${byColour.get(colour)} and ${name}`);
    if ((byName.get(name) ?? colour) !== colour) wrong.push(`${name} is both ${byName.get(name)} and ${colour}`);
    byColour.set(colour, name);
    byName.set(name, colour);
  }
  const t = cli.timeline ?? cli.estimate.timeline;   // the allocator's replay where the page draws it
  const drawnWant = Object.keys(t.points[0].bytes).filter((c) => t.points.some((p) => String(p.bytes[c]) !== '0'));
  if (!drawn.legendShown || JSON.stringify([...drawn.legend].sort()) !== JSON.stringify([...drawn.timeline].sort()))
    wrong.push(`the legend names ${drawn.legend.join(',')}, the timeline draws ${drawn.timeline.join(',')}`);
  if (JSON.stringify([...drawn.timeline].sort()) !== JSON.stringify(drawnWant.sort())) wrong.push(`the timeline draws ${drawn.timeline.join(',')}, the CLI's has ${drawnWant.join(',')}`);
  if (drawn.peak !== String(t.peak_index) || !drawn.legendText.includes('the peak')) wrong.push(`peak marked at ${drawn.peak}, the CLI's at ${t.peak_index}`);
  const runs = t.points.map((p) => p.phase).filter((ph, i, a) => ph !== a[i - 1]);
  if (JSON.stringify(drawn.phases) !== JSON.stringify(runs) || runs.some((ph) => !drawn.legendText.includes(ph)))
    wrong.push(`phases drawn ${drawn.phases.join(',')}, the CLI's ${runs.join(',')}`);
  console.log(`timeline ${job.name}: ${drawn.timeline.length} components in ${byColour.size} colours over the page, peak ${drawn.peak}, phases ${runs.join(' ')}, legend "${drawn.legendText}" ${wrong.length ? 'WRONG' : 'ok'}`);
  for (const w of new Set(wrong)) fail(`${job.name}: timeline: ${w}`);
}

// Every engine side by side: the table's rows are the JS API's serve({engine: 'all'}) for the same
// job (called in the page, apart from the page's own call), one row per engine in the API's order: an
// engine that runs the job shows its weights, activations, CUDA graphs, KV bytes and tokens,
// concurrency and fits; a refused one its message and nothing else.
const ENGINE_ROW = ['engine', 'weights', 'activations', 'cuda_graphs', 'kv_bytes', 'kv_tokens', 'concurrency', 'fits'];
async function checkEngines(page, job) {
  const given = { model: job.model || 'llama-3.1-8b', gpu: job.gpu || 'h100-sxm-80gb', engine: 'all', length: job.length,
    sets: (job.sets || []).map(([k, v]) => `${k}=${v}`) };
  const api = await page.evaluate(async (g) => {
    const lm = await (await import('./llmmem.mjs')).load();
    return JSON.parse(JSON.stringify(lm.serve(g), (k, v) => (typeof v === 'bigint' ? String(v) : v)));
  }, given);
  const rows = await page.$$eval('#engines tr[data-engine]', (trs) => trs.map((tr) => ({ engine: tr.dataset.engine, refused: tr.classList.contains('refused'),
    cells: [...tr.querySelectorAll('[data-path]')].map((e) => [e.dataset.path, e.dataset.value]) })));
  const wrong = [];
  if (JSON.stringify(rows.map((r) => r.engine)) !== JSON.stringify(api.engines.map((e) => e.engine)))
    wrong.push(`rows ${rows.map((r) => r.engine).join(',')}, the API's ${api.engines.map((e) => e.engine).join(',')}`);
  api.engines.forEach((e, i) => {
    const row = rows[i];
    if (!row) return;
    const want = (e.status === 0 ? ENGINE_ROW : ['engine', 'message']).map((k) => [`engines.${i}.${k}`, String(e[k])]);
    if (row.refused !== (e.status !== 0) || JSON.stringify(row.cells) !== JSON.stringify(want))
      wrong.push(`row ${i} (${e.engine}) shows ${JSON.stringify(row.cells)}${row.refused ? ' refused' : ''}, the API's ${JSON.stringify(want)} (status ${e.status})`);
  });
  const refused = api.engines.filter((e) => e.status !== 0).map((e) => e.engine);
  if (JSON.stringify(refused) !== JSON.stringify(job.refused || [])) wrong.push(`refused ${refused.join(',')}, the test expects ${(job.refused || []).join(',')}`);
  console.log(`engines ${job.name}: ${rows.length} rows, ${rows.reduce((n, r) => n + r.cells.length, 0)} cells equal to the JS API's; refused ${refused.join(',') || 'none'} ${wrong.length ? 'WRONG' : 'ok'}`);
  for (const w of wrong) fail(`${job.name}: engines: ${w}`);
}

// The timeline of a job the caching allocator's replay models (the CLI's estimate has "allocator") is
// the replay's (llmmem timeline --allocator --json, each value compared by compare()): the reserved
// bytes drawn over every moment, the device's total, a boundary for each step after the first, the
// out-of-memory marker after the last moment exactly when the job does not run, and a legend naming
// each series in the colour it is drawn in, none a component's. The highest reserved drawn equals
// lm.timelineRuns's (the JS API in the page), and for `measured` the H100's measured reserved peak
// plus the memory outside the allocator. Any other estimate keeps the estimate's timeline and says
// why it is not replayed: the CLI's reason, as lm.timelineRuns's error gives it.
async function checkReplay(page, job, cli, measured) {
  const d = await page.evaluate(async (js) => {
    const q = (sel) => [...document.querySelectorAll(sel)];
    const stroke = (e) => getComputedStyle(e).stroke;
    let api;
    if (js) {   // the JS API on the same job, in the page
      const lm = await (await import(new URL('llmmem.mjs', location.href).href)).load();
      try { api = { points: lm.timelineRuns(js).points.map((p) => String(p.reserved)) }; } catch (e) { api = { error: e.message, status: e.status }; }
    }
    return {
      api,
      reserved: q('#timeline .tl-reserved').map((e) => e.dataset.value),
      reservedColour: [...new Set(q('#timeline .tl-reserved').map(stroke))],
      device: q('#timeline .tl-device').map((e) => [e.dataset.value, stroke(e)]),
      steps: q('#timeline .tl-step').map((e) => e.dataset.value),
      stepNames: q('#timeline .tl-step').map((e) => e.querySelector('text')?.textContent ?? null),
      stepColour: [...new Set(q('#timeline .tl-step path').map(stroke))],
      oom: q('#timeline .tl-oom').map((e) => [e.dataset.index, e.dataset.value, stroke(e.querySelector('path')), e.querySelector('title')?.textContent]),
      series: q('#timeline-legend .key-chip[data-series]').map((e) => [e.dataset.series, getComputedStyle(e.querySelector('i')).color, e.textContent]),
      components: [...new Set(q('#timeline .tl-seg, #bars .seg, #legend .key-chip i').map((e) => getComputedStyle(e)[e instanceof SVGElement ? 'fill' : 'backgroundColor']))],
      note: document.querySelector('[data-testid=timeline-not-replayed]')?.textContent ?? null,
    };
  }, job.model && !job.configFile && !job.gguf && !job.safetensors && job.configText === undefined
    ? { model: job.model, gpu: job.gpu || 'h100-sxm-80gb', sets: [`mode=${MODESET[job.mode]}`, ...(job.sets || []).map(([k, v]) => `${k}=${v}`)] } : null);
  const a = cli.estimate.allocator, wrong = [];
  const big = (xs) => xs.reduce((m, x) => (BigInt(x) > m ? BigInt(x) : m), 0n);
  if (a) {
    const t = cli.timeline, series = new Map(d.series.map(([n, c]) => [n, c]));
    if (!t) wrong.push('the page does not draw the replay (no value from llmmem timeline --allocator)');
    else {
      if (d.reserved.length !== t.points.length) wrong.push(`${d.reserved.length} reserved values drawn, the replay has ${t.points.length} moments`);
      const starts = t.points.filter((p, i) => i > 0 && String(p.step) !== String(t.points[i - 1].step)).length + 1;
      if (d.steps.length !== starts) wrong.push(`${d.steps.length} steps drawn, the replay has ${starts}`);
      const oomWant = a.runs ? [] : [[String(t.points.length - 1), String(a.out_of_memory.after)]];
      if (JSON.stringify(d.oom.map((o) => o.slice(0, 2))) !== JSON.stringify(oomWant)) wrong.push(`out-of-memory marker ${JSON.stringify(d.oom)}, want ${JSON.stringify(oomWant)}`);
      // the last step drawn is named as the library's out-of-memory moment names it ("step 2, ...")
      const oomStep = a.runs ? null : /^(step \d+|decode step \d+|the prefill)/.exec(a.out_of_memory.after)?.[1];
      if (oomStep && d.stepNames.at(-1) !== oomStep) wrong.push(`the last step is named "${d.stepNames.at(-1)}", it runs out of memory in "${oomStep}"`);
    }
    const highest = big(d.reserved);
    if (d.api?.error || !d.api || highest !== big(d.api.points)) wrong.push(`the highest reserved drawn is ${highest}, lm.timelineRuns's ${d.api?.error ?? big(d.api?.points ?? [])}`);
    if (measured !== undefined && highest !== BigInt(measured) + BigInt(a.outside))
      wrong.push(`the highest reserved drawn is ${highest}, measured ${measured} + outside ${a.outside} = ${BigInt(measured) + BigInt(a.outside)}`);
    if (d.device.length !== 1 || d.device[0][0] !== String(cli.estimate.device_total_bytes)) wrong.push(`device total line ${JSON.stringify(d.device)}`);
    // the legend names each series in the colour drawn; no series takes a component's colour
    const drawnIn = { reserved: d.reservedColour, device: d.device.map((x) => x[1]), step: d.stepColour, oom: d.oom.map((o) => o[2]) };
    for (const [name, colours] of Object.entries(drawnIn)) {
      if (!colours.length) continue;
      if (colours.length !== 1 || series.get(name) !== colours[0]) wrong.push(`${name} drawn in ${colours.join(',')}, its legend in ${series.get(name) ?? '(no legend entry)'}`);
      if (d.components.includes(colours[0])) wrong.push(`${name} is drawn in ${colours[0]}, a component's colour`);
    }
    if (new Set(Object.values(drawnIn).flat()).size !== Object.values(drawnIn).filter((c) => c.length).length) wrong.push(`two series share a colour: ${JSON.stringify(drawnIn)}`);
    const want = ['reserved', 'device', 'step', ...(a.runs ? [] : ['oom'])];
    if (JSON.stringify(d.series.map((x) => x[0])) !== JSON.stringify(want)) wrong.push(`the legend lists ${d.series.map((x) => x[0]).join(',')}, want ${want.join(',')}`);
    if (d.note !== null) wrong.push(`a replayed job says "${d.note}"`);
    console.log(`replay ${job.name}: ${d.reserved.length} reserved values, highest ${highest} (lm.timelineRuns ${d.api ? big(d.api.points ?? []) : '-'}${measured !== undefined ? `, measured ${measured} + outside ${a.outside}` : ''}), `
      + `steps ${d.steps.join(',')} named ${d.stepNames.filter(Boolean).slice(0, 4).join(',')}, device ${d.device.map((x) => x[0])}, oom ${JSON.stringify(d.oom.map((o) => o[3]))}, legend ${d.series.map(([n, c, x]) => `${n} ${c} "${x}"`).join('; ')} ${wrong.length ? 'WRONG' : 'ok'}`);
  } else {
    const reason = /^allocator: not replayed: (.*)$/m.exec(cliRun(argvOf('estimate', job).filter((x) => x !== '--json')).stdout)?.[1];
    if (d.note !== `the allocator's replay is not drawn: ${reason}`) wrong.push(`the timeline says "${d.note}", the CLI "allocator: not replayed: ${reason}"`);
    if (d.api && (d.api.status !== 'LLMMEM_ERR_UNSUPPORTED' || d.api.error !== reason)) wrong.push(`lm.timelineRuns says ${JSON.stringify(d.api)}, the page "${d.note}"`);
    if (d.reserved.length || d.series.length || d.oom.length) wrong.push('a job not replayed draws the replay\'s series');
    console.log(`replay ${job.name}: not replayed, the timeline says "${d.note}"${d.api ? `, lm.timelineRuns throws ${d.api.status}` : ''} ${wrong.length ? 'WRONG' : 'ok'}`);
  }
  for (const w of wrong) fail(`${job.name}: replayed timeline: ${w}`);
}

// Beside the verdict, whether the job runs as PyTorch's CUDA caching allocator serves it: for a job
// the allocation tape runs (the CLI's JSON has "allocator"), the allocated and reserved peaks, the
// free blocks, the other placement's reserved peak when it differs, the memory outside the
// allocator, the device's total, whether it runs, the out-of-memory request and its moment, and
// whether expandable_segments:True would run it (each value compared with the CLI's by compare());
// otherwise "not replayed: " and the reason the CLI's text gives.
async function checkAllocator(page, job, cli) {
  const box = await page.evaluate(() => {
    const b = document.querySelector('#allocator');
    return { paths: [...b.querySelectorAll('[data-path]')].map((e) => e.dataset.path), text: b.textContent.trim(), shown: b.offsetParent !== null };
  });
  const a = cli.estimate.allocator, wrong = [];
  if (a) {
    const want = ['allocator.allocated_peak', 'allocator.reserved_peak', 'allocator.free_at_reserved_peak', 'allocator.outside', 'device_total_bytes', 'allocator.runs'];
    if (String(a.reserved_low) !== String(a.reserved_peak)) want.push('allocator.reserved_low');
    if (String(a.decode_stride) !== '1') want.push('allocator.decode_stride');
    if (a.out_of_memory) want.push('allocator.out_of_memory.request', 'allocator.out_of_memory.after');
    if (a.runs_with_expandable_segments !== undefined && a.runs_with_expandable_segments !== null) want.push('allocator.runs_with_expandable_segments');
    const missing = want.filter((p) => !box.paths.includes(p)), extra = box.paths.filter((p) => !want.includes(p));
    if (missing.length || extra.length) wrong.push(`shows ${box.paths.join(',')}: missing ${missing.join(',')}, extra ${extra.join(',')}`);
    if (!box.shown) wrong.push('the replay is not shown');
  } else {
    const text = cliRun(argvOf('estimate', job).filter((x) => x !== '--json')).stdout;
    const line = /^allocator: not replayed: (.*)$/m.exec(text)?.[1];
    if (!line || box.text !== `not replayed: ${line}`) wrong.push(`the page says "${box.text}", the CLI "allocator: not replayed: ${line}"`);
  }
  console.log(`allocator ${job.name}: ${a ? `replayed, runs ${a.runs}: ${box.paths.length} values` : `"${box.text}"`} ${wrong.length ? 'WRONG' : 'ok'}`);
  for (const w of wrong) fail(`${job.name}: allocator: ${w}`);
}

// The header's call times are the warm ones: each call's first run after loading (which also
// compiles the code) is kept apart in data-first-ms and its tooltip, never shown as the time.
async function checkTiming(page, name) {
  const calls = await page.$$eval('#timing [data-call]', (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
  const label = await page.$eval('#timing', (e) => [e.firstChild?.textContent ?? '', e.title]);
  console.log(`timing ${name}: ${calls.map((c) => `${c.call} ${Number(c.ms).toFixed(3)} ms over ${c.runs} runs (first ${Number(c.firstMs).toFixed(1)} ms)`).join('; ')}`);
  if (!calls.length || !/^warm call times/.test(label[0]) || !label[1].includes('first call')) fail(`${name}: the header's times are not labelled: "${label[0]}" "${label[1]}"`);
  for (const c of calls)
    if (c.text !== `${c.call} ${Number(c.ms).toFixed(2)} ms` || !(Number(c.runs) >= 1) || c.firstMs === undefined) fail(`${name}: time "${c.text}" (${JSON.stringify(c)})`);
}

// ---- the jobs ----
const gguf = writeGguf(path.join(work, 'llama-1b-q4_k_m.gguf'), llamaQ4KM());
console.log(`gguf ${gguf.path}: ${gguf.size} bytes (sparse; header ${gguf.headerBytes} bytes)`);
const ckpt = writeCheckpoint(path.join(work, 'Llama-3.1-8B'), fs.readFileSync(path.join(CONFIGS, 'llama-3.1-8b.json'), 'utf8'));
console.log(`safetensors ${ckpt.dir}: ${Object.entries(ckpt.sizes).map(([n, s]) => `${n} ${s.size} bytes (sparse; header ${s.header})`).join(', ')}`);
// a file named as a second download is: a space and brackets, which the page's file names do not hold
const copied = path.join(work, 'llama-mixed (1).gguf');
fs.copyFileSync(path.resolve(here, '../data/gguf/llama-mixed.gguf'), copied);
const JOBS = [
  { name: 'inference-default', mode: 'inference' },
  { name: 'inference-batch-awq', model: 'mistral-7b-v0.1', gpu: 'l40s', mode: 'inference',
    sets: [['weight_format', 'awq_int4'], ['micro_batch_size', '4'], ['sequence_length', '8192']] },
  { name: 'vllm-70b-tp4', model: 'llama-3.1-70b', mode: 'vllm', length: '8192',
    sets: [['tensor_parallel', '4'], ['gpu_memory_utilization', '0.9']] },
  { name: 'vllm-qwen-fp8kv-a100', model: 'qwen2.5-32b', gpu: 'a100-sxm-40gb', mode: 'vllm',
    sets: [['kv_cache_dtype', 'fp8'], ['max_model_len', '32768'], ['tensor_parallel', '2']] },
  { name: 'llamacpp-2x4090', gpu: 'rtx-4090', mode: 'llamacpp',
    sets: [['devices_per_node', '2'], ['n_ctx', '32768'], ['n_parallel', '4']] },
  { name: 'llamacpp-24gib-partial', model: 'qwen2.5-32b', gpu: 'rtx-4090', mode: 'llamacpp',
    sets: [['memory_bytes', '24GiB'], ['devices_per_node', '1'], ['n_gpu_layers', '40'], ['cache_type_k', 'q8_0']] },
  { name: 'ollama-mac', model: 'qwen3-8b', gpu: 'm2-max-32gb', mode: 'ollama' },
  { name: 'ollama-spread', model: 'gemma-2-9b', gpu: 'rtx-3090', mode: 'ollama',
    sets: [['devices_per_node', '2'], ['num_ctx', '8192'], ['num_parallel', '2'], ['sched_spread', 'true']] },
  // every engine side by side: each runs Llama-3.1-8B on one H100; Qwen3-Next's Gated DeltaNet layers
  // on tensor 4 are refused by TensorRT-LLM (tests/cli/test_serve.py)
  { name: 'engines-8b-h100', mode: 'engines', length: '8192', sets: [['devices_per_node', '1']] },
  { name: 'engines-refused', model: 'qwen3-next-80b-a3b', gpu: 'h200', mode: 'engines', sets: [['tensor_parallel', '4']], refused: ['trtllm'] },
  { name: 'training-zero3', model: 'llama-2-7b', gpu: 'a100-sxm-80gb', mode: 'training',
    sets: [['micro_batch_size', '2'], ['sequence_length', '4096'], ['data_parallel', '8'], ['zero_stage', '3'], ['recompute', 'full']] },
  { name: 'training-pipeline', model: 'llama-3.1-8b', mode: 'training', plan: '8',
    sets: [['micro_batch_size', '1'], ['tensor_parallel', '2'], ['pipeline_parallel', '4'], ['num_micro_batches', '8']] },
  { name: 'lora-8b', mode: 'lora', gpu: 'rtx-4090', sets: [['micro_batch_size', '2'], ['sequence_length', '2048'], ['lora_rank', '16'], ['lora_targets', 'q,k,v,o']] },
  { name: 'qlora-70b', model: 'llama-3.1-70b', gpu: 'a100-sxm-80gb', mode: 'qlora', sets: [['lora_rank', '64'], ['recompute', 'full']] },
  { name: 'training-solver-h200', model: 'qwen2.5-7b', gpu: 'h200', mode: 'training', sets: [['sequence_length', '8192'], ['optimizer', 'adamw']] },
  { name: 'config-drop-mistral', configFile: path.join(CONFIGS, 'mistral-7b-v0.1.json'), gpu: 'rtx-4090', mode: 'inference', sets: [['micro_batch_size', '2']] },
  { name: 'config-pasted-gemma2-vllm', configText: fs.readFileSync(path.join(CONFIGS, 'gemma-2-9b.json'), 'utf8'), gpu: 'l4', mode: 'vllm',
    sets: [['max_model_len', '4096']] },
  { name: 'safetensors-drop-lora', safetensors: ckpt, gpu: 'rtx-4090', mode: 'lora', sets: [['micro_batch_size', '1'], ['sequence_length', '1024']] },
  { name: 'gguf-drop-small', gguf: copied, gpu: 'rtx-4060', mode: 'llamacpp', sets: [['n_ctx', '8192']] },
  { name: 'gguf-drop-llamacpp', gguf: gguf.path, gpu: 'rtx-4060', mode: 'llamacpp', sets: [['n_ctx', '16384']] },
  // jobs the allocation tape runs (transformers on one device): replayed through PyTorch's caching
  // allocator. Llama-3.2-1B, 2 x 2048 tokens, on 16 GiB: out of memory in step 2 (tests/test_tape.c),
  // the two placements' reserved peaks differ; 2 x 2600 tokens on 24 GiB: runs only with
  // expandable_segments:True; a generation of 99,999 decode steps, replayed every 1563 tokens
  // the job measured on an H100: torch.cuda.max_memory_reserved() 21,361,590,272 bytes (tests/data/gpu,
  // t_llama1b_sdpa); the timeline's reserved adds the memory outside the allocator
  { name: 'training-replayed-h100', model: 'llama-3.2-1b', gpu: 'h100-sxm-80gb', mode: 'training', measuredReserved: '21361590272',
    sets: [['framework', 'hf_trainer'], ['precision_recipe', 'pure_bf16'], ['micro_batch_size', '2'], ['sequence_length', '2048']] },
  { name: 'training-replayed-16gib', model: 'llama-3.2-1b', gpu: 'rtx-4090', mode: 'training',
    sets: [['framework', 'hf_trainer'], ['precision_recipe', 'pure_bf16'], ['micro_batch_size', '2'], ['sequence_length', '2048'], ['memory_bytes', '16GiB']] },
  { name: 'training-replayed-expandable', model: 'llama-3.2-1b', gpu: 'rtx-4090', mode: 'training',
    sets: [['framework', 'hf_trainer'], ['precision_recipe', 'pure_bf16'], ['micro_batch_size', '2'], ['sequence_length', '2600']] },
  { name: 'generate-replayed', model: 'llama-3.2-1b', mode: 'inference', solve: false,
    sets: [['framework', 'hf_trainer'], ['micro_batch_size', '1'], ['sequence_length', '16'], ['max_new_tokens', '100000']] },
];
const knownKeys = new Set(keyOrder);
for (const j of JOBS) for (const [k] of j.sets || []) if (!knownKeys.has(k)) fail(`${j.name}: the test sets an unknown key ${k}`);

const links = {};
for (const job of JOBS) try {
  if (job.configText !== undefined) { job.configTextFile = path.join(work, `${job.name}.json`); fs.writeFileSync(job.configTextFile, job.configText); }
  const page = await openPage();
  const t = Date.now();
  await setJob(page, job);
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== 'ok') fail(`${job.name}: the page says ${state}: ${await page.$$eval('[data-err]', (e) => e.map((x) => x.textContent).filter(Boolean).join(' | '))}`);
  const r = await compare(page, job);
  links[job.name] = await page.getAttribute('#link', 'href');
  console.log(`job ${job.name}: ${r.n} values compared (${r.srcs.join(', ')}); timing on the page: ${await page.textContent('#timing')}; ${Date.now() - t} ms`);
  const empty = await emptyHeadings(page);
  if (empty.length) fail(`${job.name}: headings over nothing: ${empty.join(', ')}`);
  if (COMMAND[job.mode] === 'estimate') {
    await checkTimeline(page, job, r.cli);
    await checkAllocator(page, job, r.cli);
    await checkReplay(page, job, r.cli, job.measuredReserved);
  }
  if (job.mode === 'engines') await checkEngines(page, job);
  await checkTiming(page, job.name);
  if (job.gguf || job.safetensors) {  // only the headers were read
    const read = await page.$$eval('#file-list li', (els) => els.map((e) => ({ name: e.dataset.name, size: Number(e.dataset.size), read: Number(e.dataset.read) })));
    for (const f of read) {
      console.log(`dropped ${job.name}: ${f.name} ${f.size} bytes, ${f.read} read by the page`);
      const limit = job.gguf === gguf.path ? 4 << 20 : job.safetensors ? (ckpt.sizes[f.name]?.header ?? f.size) : f.size;
      if (f.read > limit) fail(`${job.name}: the page read ${f.read} bytes of ${f.name}, more than its header (${limit})`);
    }
    if (!read.length) fail(`${job.name}: no dropped file listed`);
  }
  await shot(page, job.name);
  await page.close();
} catch (e) { fail(`${job.name}: ${e.stack || e}`); }

// ---- the link restores the job: the same numbers in a fresh page ----
for (const name of ['training-pipeline', 'config-pasted-gemma2-vllm', 'ollama-spread', 'engines-8b-h100']) try {
  const job = JOBS.find((j) => j.name === name);
  const page = await openPage(new URL(links[name], base).href);
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== 'ok') fail(`link ${name}: the page says ${state}`);
  const r = await compare(page, { ...job, name: `link:${name}` });
  if (job.mode === 'engines') await checkEngines(page, { ...job, name: `link:${name}` });
  console.log(`link ${name}: ${links[name].length} characters; ${r.n} values compared`);
  await shot(page, `link-${name}`);
  await page.close();
} catch (e) { fail(`link ${name}: ${e.stack || e}`); }

// ---- a pasted config again after dropped files: its own job (the drop cleared the page's files) ----
try {
  const job = JOBS.find((j) => j.name === 'config-pasted-gemma2-vllm');
  const page = await openPage();
  await setJob(page, job);
  await page.setInputFiles('#files', path.join(CONFIGS, 'mistral-7b-v0.1.json'));
  await page.waitForFunction(() => document.querySelector('input[name=source][value=files]').checked && document.body.dataset.state !== 'reading');
  await page.check('input[name=source][value=config]');
  const r = await compare(page, { ...job, name: 'pasted-after-drop' });
  console.log(`pasted-after-drop: ${r.n} values compared`);
  await page.close();
} catch (e) { fail(`pasted-after-drop: ${e.stack || e}`); }

// ---- bad input: the library's message beside the field, the last good result kept ----
async function expectError(...a) { try { await expectErrorOnce(...a); } catch (e) { fail(`${a[0]}: ${e.stack || e}`); } }
async function expectErrorOnce(name, act, field, cliArgv, mapPath = (s) => s) {
  const page = await openPage();
  await act(page);
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 60000 }).catch(() => {});
  const state = await page.evaluate(() => document.body.dataset.state);
  const errs = await page.$$eval('[data-err]', (els) => els.filter((e) => e.textContent && e.offsetParent !== null).map((e) => ({ field: e.dataset.err, text: e.textContent })));
  const r = cliRun(cliArgv);
  const cliMsg = mapPath(r.stderr.trim().split('\n').pop().replace(/^llmmem: error: /, ''));
  const mine = errs.find((e) => e.field === field);
  const blank = (await page.evaluate(() => document.querySelectorAll('#results [data-path]').length)) === 0;
  const stale = await page.isVisible('#stale');
  console.log(`error ${name}: state=${state} field=${mine?.field ?? '(none)'} page="${mine ? mapPath(mine.text) : errs.map((e) => e.field + ': ' + e.text).join(' | ')}" cli(rc ${r.rc})="${cliMsg}" stale=${stale} blank=${blank}`);
  if (state !== 'error') fail(`${name}: the page did not report an error`);
  if (!mine) fail(`${name}: no message beside ${field}`);
  else if (mapPath(mine.text) !== cliMsg) fail(`${name}: the page says "${mine.text}", the CLI "${cliMsg}"`);
  if (r.rc !== 2) fail(`${name}: the CLI exits ${r.rc}`);
  if (blank || !stale) fail(`${name}: the last good result is not kept and marked stale`);
  await shot(page, `error-${name}`);
  await page.close();
}
const broken = '{"model_type": "llama", "hidden_size": 4096,';
fs.writeFileSync(path.join(work, 'broken.json'), broken);
await expectError('broken-config', (p) => p.fill('#config-text', broken), 'config',
  ['estimate', '--config', path.join(work, 'broken.json'), '--json'], (s) => s.replace(/\S*broken\.json|\S*pasted\/config\.json/g, '<config>'));
const trunc = path.join(work, 'truncated.gguf');
fs.writeFileSync(trunc, fs.readFileSync(gguf.path).subarray(0, 1000));
await expectError('truncated-gguf', (p) => p.setInputFiles('#files', trunc), 'gguf',
  ['estimate', '--gguf', trunc, '--json'], (s) => s.replace(/\S*truncated\.gguf/g, '<gguf>'));
await expectError('impossible-layout', async (p) => { await p.selectOption('#mode', 'training'); await setKey(p, 'tensor_parallel', '3'); }, 'set:tensor_parallel',
  ['estimate', '--model', 'llama-3.1-8b', '--set', 'mode=training', '--set', 'tensor_parallel=3', '--json']);
await expectError('bad-value', async (p) => setKey(p, 'micro_batch_size', '2.5'), 'set:micro_batch_size',
  ['estimate', '--model', 'llama-3.1-8b', '--set', 'mode=inference', '--set', 'micro_batch_size=2.5', '--json']);
{ // an unknown key from a link
  const page = await openPage(`${base}#model=llama-3.1-8b&mode=inference&set=not_a_key%3D1`);
  const errs = await page.$$eval('[data-err]', (els) => els.filter((e) => e.textContent && e.offsetParent !== null).map((e) => `${e.dataset.err}: ${e.textContent}`));
  const r = cliRun(['estimate', '--set', 'not_a_key=1']);
  const cliMsg = r.stderr.trim().split('\n').pop().replace(/^llmmem: error: /, '');
  console.log(`error unknown-key: page ${JSON.stringify(errs)} cli "${cliMsg}"`);
  if (!errs.some((e) => e.endsWith(cliMsg))) fail(`unknown-key: the page does not show "${cliMsg}"`);
  const empty = await emptyHeadings(page), note = await page.textContent('#stale');
  console.log(`error unknown-key: no result yet: headings over nothing ${JSON.stringify(empty)}; note "${note}"`);
  if (empty.length || !/no result/.test(note)) fail(`unknown-key: with no result yet the page shows headings over nothing (${empty.join(', ')}) or "${note}"`);
  await shot(page, 'error-unknown-key');
  await page.close();
}

// ---- while the core loads: a status line, no empty form or headings ----
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route('**/llmmem-core.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(base);
  await page.waitForSelector('[data-testid=loading]', { state: 'visible', timeout: 10000 });
  const during = await page.evaluate(() => ({
    state: document.body.dataset.state, loading: document.querySelector('#loading').textContent.trim(),
    headings: [...document.querySelectorAll('h2, legend')].filter((h) => h.offsetParent !== null).map((h) => h.textContent),
  }));
  await shot(page, 'loading');
  release();
  await page.waitForFunction(() => document.body.dataset.state !== 'loading', null, { timeout: 30000 });
  const after = await page.evaluate(() => ({ state: document.body.dataset.state, loadingShown: document.querySelector('#loading').offsetParent !== null }));
  console.log(`loading: while the core loads ${JSON.stringify(during)}; after ${JSON.stringify(after)}`);
  if (during.state !== 'loading' || !during.loading || during.headings.length) fail(`loading: the page shows ${JSON.stringify(during)} while the core loads`);
  if (after.state !== 'ok' || after.loadingShown) fail(`loading: after the core loaded ${JSON.stringify(after)}`);
  const empty = await emptyHeadings(page);
  if (empty.length) fail(`loading: headings over nothing once loaded: ${empty.join(', ')}`);
  await checkTiming(page, 'first load');
  await page.close();
} catch (e) { fail(`loading: ${e.stack || e}`); }

// ---- the layouts table at any width: inside the page, scrolled within its box when too wide ----
for (const width of [1400, 1024, 800, 390]) try {
  const page = await openPage(new URL(links['training-pipeline'], base).href);
  await page.setViewportSize({ width, height: 1000 });
  const m = await page.evaluate(() => {
    const t = document.querySelector('#plan-out table'), box = t?.parentElement, section = document.querySelector('#results');
    const last = t?.querySelector('tr:last-child td:last-child');
    const before = { table: t?.getBoundingClientRect().right, box: box?.getBoundingClientRect().right, section: section.getBoundingClientRect().right };
    if (box) box.scrollLeft = box.scrollWidth;   // the last column, scrolled to
    return { ...before, page: document.scrollingElement.scrollWidth, viewport: document.documentElement.clientWidth,
      scrolls: box ? box.scrollWidth > box.clientWidth : null, lastRight: last?.getBoundingClientRect().right, boxAfter: box?.getBoundingClientRect().right };
  });
  console.log(`layouts at ${width} px: ${JSON.stringify(m)}`);
  if (m.table === undefined) fail(`layouts at ${width} px: no table`);
  else {
    if (m.page > m.viewport) fail(`layouts at ${width} px: the page is ${m.page} px wide in a ${m.viewport} px window`);
    if (m.box > m.section + 0.5) fail(`layouts at ${width} px: the table's box ends at ${m.box} px, past its column (${m.section})`);
    if (width >= 1400 && (m.scrolls || m.table > m.section + 0.5)) fail(`layouts at ${width} px: the table does not fit its column (${m.table} > ${m.section})`);
    if (m.lastRight > m.boxAfter + 0.5) fail(`layouts at ${width} px: the last column cannot be reached (${m.lastRight} > ${m.boxAfter})`);
  }
  await shot(page, `layouts-${width}px`);
  await page.close();
} catch (e) { fail(`layouts at ${width} px: ${e.stack || e}`); }

// ---- the page as the README shows it ----
{
  const page = await openPage(new URL(links['training-pipeline'], base).href);
  await page.setViewportSize({ width: 1400, height: 1100 });
  await setKey(page, 'micro_batch_size', '1');   // one keystroke more: the timing of a warm module
  const file = path.join(shots, 'readme.png');
  await page.screenshot({ path: file });
  console.log(`screenshot ${file}`);
  await page.close();
}

if (pageErrors.length) for (const e of pageErrors) fail(`the page logged: ${e}`);
await browser.close();
server.close();
fs.rmSync(work, { recursive: true, force: true });
const weight = (process.env.LLMMEM_WEB_URL ? [] : fs.readdirSync(site)).map((f) => [f, fs.statSync(path.join(site, f)).size]);
console.log(`site: ${weight.map(([f, s]) => `${f} ${s}`).join(', ')}; ${weight.reduce((a, [, s]) => a + s, 0)} bytes in all`);
console.log(`${jobsCompared} jobs compared, ${comparisons} values equal to the CLI's checked; ${failures} failures; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failures ? 1 : 0);
