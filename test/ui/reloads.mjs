// Reproduces the blank-webview race in the real VS Code (code-server's workbench, the packaged
// .vsix, a copy of the sample novel, the demo model): loads the workbench, expands the three
// webview views, reloads it N times and counts, per reload, which of Chat, Scene State and
// Worldline Graph show nothing after W seconds, and where each blank one stopped:
//
//   no host page      VS Code's webview host iframe (pre/index.html) is not over the view
//   no content frame  the host page never created the frame for our HTML: it is still waiting
//                     for its service worker (see "The cause" below)
//   scripts failed    our HTML is there but media/*.js never ran (their requests were not served)
//   ready lost        our script ran, the extension never logged "page ready"
//   no render         the extension heard "ready", the page shows no update
//
//   node test/ui/reloads.mjs [--runs 20] [--wait 20] [--json out.json] [--no-trace]
//
// Prints one line per reload and a summary (blank views per view, median time to content); the
// exit code is 0 (a measuring tool, not a test). The extension runs with its log at Debug
// (`--log worldline.worldline:debug`), so its handshake lines ("webview chat: resolved, html
// set", "... page ready") are read from the Worldline log. Every webview host page also logs its
// service-worker steps ([sw-trace], injected with page.addInitScript).
//
// The cause (found with this tool, code-server 4.100.3 / VS Code 1.100.3): code-server serves
// every webview from one origin (server-main.js sets webviewEndpoint to its own
// /out/vs/workbench/contrib/webview/browser/pre), where desktop VS Code and vscode.dev give each
// webview an origin of its own. The host page, pre/index.html, registers
// `service-worker.js?v=4&…&id=<webview id>&…` and waits (the `workerReady` promise) until a
// controller whose URL ends with that id answers its {channel:'version'} message. With one origin
// all webviews share one registration, and each webview's different script URL installs a new
// worker that calls skipWaiting() and clients.claim() (pre/service-worker.js). When two or three
// webviews load together, a host page posts 'version' to its own worker while that worker is
// still activating; the next webview's worker replaces it before it answers, the reply never
// comes, the page has already removed its one-shot controllerchange listener, so `workerReady`
// never settles and the 'content' message (our HTML) waits forever: the view stays blank until
// it is collapsed and expanded (a new host page). Less often the content frame is created but
// its controller is replaced while our scripts load: their requests then go to the network
// (https://file+.vscode-resource.vscode-cdn.net/…, net::ERR_NAME_NOT_RESOLVED) and never run.
// Neither depends on the extension: the host pages register before the extension's
// resolveWebviewView runs. Without `&id=${ID}` in the script URL (one URL for all webviews, so
// a second registration is a no-op) no view stayed blank in 20 reloads.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installVsix, packageExtension, startDemoModel } from '../../scripts/demo.mjs';
import { REPO_ROOT } from '../../scripts/vscode/install.mjs';
import { launchBrowser, onShutdownSignal, startServer } from '../../scripts/vscode/server.mjs';

const VIEWPORT = { width: 1280, height: 800 };
const VIEWS = [
  { title: 'Chat', page: 'chat' },
  { title: 'Scene State', page: 'state' },
  { title: 'Worldline Graph', page: 'graph' },
];
const MANIFEST = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const EXTENSION_ID = `${MANIFEST.publisher}.${MANIFEST.name}`;
const CALM_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The demo (scripts/demo.mjs) with the extension's log at Debug, and where its logs go. */
async function startStack() {
  const vsix = await packageExtension();
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'worldline-reloads-'));
  let model = null;
  let server = null;
  const stop = async () => {
    if (server) await server.stop();
    if (model) await model.server.close().catch(() => {});
    await fsp.rm(base, { recursive: true, force: true }).catch(() => {});
  };
  try {
    const workspace = path.join(base, 'sample-novel');
    await fsp.cp(path.join(REPO_ROOT, 'examples', 'sample-novel'), workspace, { recursive: true });
    model = await startDemoModel();
    await fsp.mkdir(path.join(workspace, '.vscode'), { recursive: true });
    await fsp.writeFile(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'worldline.baseUrl': model.server.url, 'worldline.model': model.model }, null, 2) + '\n');
    const extensionsDir = path.join(base, 'extensions');
    await fsp.mkdir(extensionsDir);
    await installVsix(vsix, extensionsDir);
    server = await startServer({ extensionsDir, settings: CALM_SETTINGS, extraArgs: ['--log', 'debug'] });
    const folder = encodeURIComponent(workspace).replace(/%2F/g, '/');
    return { url: `${server.url}?folder=${folder}`, logsRoot: server.tempDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Every "webview <page>: …" line of the Worldline logs (one file per extension host), with its time. */
function handshakeLines(root) {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/Worldline\.log$/.test(e.name)) files.push(full);
    }
  };
  try {
    walk(root);
  } catch {
    return [];
  }
  const lines = [];
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) \[\w+\] webview (\w+): (.*)$/.exec(line);
      if (m) lines.push({ at: new Date(`${m[1]}T${m[2]}`).getTime(), page: m[3], what: m[4] });
    }
  }
  return lines.sort((a, b) => a.at - b.at);
}

/**
 * Runs in every frame before its scripts: in VS Code's webview host pages (pre/index.html) it
 * logs the service-worker registration, every controller change and the worker's version reply.
 */
function traceServiceWorker() {
  if (!/\/pre\/index(-no-csp)?\.html$/.test(location.pathname)) return;
  const sw = navigator.serviceWorker;
  if (!sw) return;
  const own = (new URLSearchParams(location.search).get('id') || '').slice(0, 8);
  const name = (w) => (w ? `${(new URL(w.scriptURL).searchParams.get('id') || 'shared').slice(0, 8)}(${w.state})` : 'none');
  const say = (s) => console.log(`[sw-trace] ${own} ${s}`);
  say(`host page starts, controller ${name(sw.controller)}`);
  const register = sw.register.bind(sw);
  sw.register = (url, options) => {
    say('registers its worker');
    return register(url, options).then(
      (reg) => {
        say(`registered: controller ${name(sw.controller)}, installing ${name(reg.installing)}, active ${name(reg.active)}`);
        return reg;
      },
      (err) => {
        say(`registration failed: ${err}`);
        throw err;
      },
    );
  };
  sw.addEventListener('controllerchange', () => say(`controllerchange -> ${name(sw.controller)}`));
  sw.addEventListener('message', (e) => {
    if (e.data && e.data.channel === 'version') say(`version reply ${e.data.version}`);
  });
}

const headerSelector = (title) => `.pane-header[aria-label="${title} Section"]`;

/** The webview host iframe lying over a view's pane body, or null. */
async function hostIframe(page, title) {
  const body = page.locator('.part.sidebar .pane', { has: page.locator(headerSelector(title)) }).locator('.pane-body');
  const paneBox = await body.boundingBox({ timeout: 1000 }).catch(() => null);
  if (!paneBox || paneBox.height < 20) return null;
  for (const el of await page.$$('iframe.webview')) {
    const box = await el.boundingBox();
    if (!box || box.width < 20 || box.height < 20) continue;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    if (cx >= paneBox.x && cx <= paneBox.x + paneBox.width && cy >= paneBox.y && cy <= paneBox.y + paneBox.height) return el;
  }
  return null;
}

/** The view's webview as the browser has it: the host page, its service worker, our document. */
async function probe(page, title) {
  const el = await hostIframe(page, title);
  const outer = el && (await el.contentFrame());
  if (!outer) return { host: false };
  const host = await outer
    .evaluate(() => {
      const id = new URL(location.href).searchParams.get('id');
      const c = navigator.serviceWorker?.controller;
      const cid = c ? new URL(c.scriptURL).searchParams.get('id') : null;
      return {
        id: id?.slice(0, 8),
        controller: c ? (cid === id ? 'own' : cid ? `other (${cid.slice(0, 8)})` : 'shared') : 'none',
        contentFrame: document.getElementById('active-frame') ? 'active' : document.getElementById('pending-frame') ? 'pending' : 'none',
      };
    })
    .catch((err) => ({ error: err.message }));
  const result = { host: true, ...host, doc: null };
  for (const inner of outer.childFrames()) {
    const doc = await inner
      .evaluate(() => ({
        ours: !!document.getElementById('bootstrap'),
        ready: document.readyState,
        // Our scripts build these: the Chat its #log, the others a <main>.
        ran: !!(document.getElementById('log') || document.querySelector('main')),
        // Drawn from an update of the extension: the Chat's header, the others' content.
        rendered: !!((document.querySelector('header')?.textContent ?? '').trim() || document.querySelector('main')?.children.length),
        text: (document.body?.innerText ?? '').trim().length,
        controls: document.querySelectorAll('textarea, input, button, select').length,
      }))
      .catch(() => null);
    if (doc && (doc.ours || !result.doc)) result.doc = doc;
  }
  return result;
}

/** On screen: the test/ui/screenshot.mjs criterion (our document, loaded, with text or controls). */
const isShown = (p) => !!(p.host && p.contentFrame === 'active' && p.doc?.ours && p.doc.ready === 'complete' && (p.doc.text > 0 || p.doc.controls > 0));

function stageOf(p, pageReady) {
  if (!p.host) return 'no host page';
  if (!p.doc || !p.doc.ours) return 'no content frame';
  if (!p.doc.ran) return 'scripts failed';
  if (!pageReady) return 'ready lost';
  if (!p.doc.rendered) return 'no render';
  return 'hidden frame';
}

function median(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : Math.round((s[mid - 1] + s[mid]) / 2);
}

export async function runReloads({ runs = 20, waitMs = 20_000, traceSw = true, log = console.log, jsonPath } = {}) {
  const ctx = { stack: null, browser: null };
  const cleanup = async () => {
    if (ctx.browser) await ctx.browser.close().catch(() => {});
    if (ctx.stack) await ctx.stack.stop();
  };
  const stopSignals = onShutdownSignal(cleanup);
  const records = [];
  try {
    ctx.stack = await startStack();
    ctx.browser = await launchBrowser();
    const page = await (await ctx.browser.newContext({ viewport: VIEWPORT })).newPage();
    if (traceSw) await page.addInitScript(traceServiceWorker);
    const events = [];
    page.on('console', (m) => {
      const text = m.text();
      if (/sw-trace|service worker|Webview/i.test(text)) events.push({ at: Date.now(), text: text.slice(0, 160) });
    });
    page.on('requestfailed', (r) => {
      if (/vscode-cdn\.net|vscode-resource/.test(r.url())) events.push({ at: Date.now(), text: `request failed: ${r.url().replace(/^.*\/(media|dist)\//, '$1/')} ${r.failure()?.errorText ?? ''}` });
    });

    // Load 0 opens the container and expands every view (the layout then persists); it is reported, not counted.
    for (let run = 0; run <= runs; run++) {
      const started = Date.now();
      if (run === 0) await page.goto(ctx.stack.url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      else await page.reload({ waitUntil: 'domcontentloaded', timeout: 60_000 });
      await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
      if (run === 0) {
        await page.locator('.part.activitybar [aria-label*="Worldline"]').first().click({ timeout: 60_000 });
        for (const v of VIEWS) {
          const h = page.locator(`.part.sidebar ${headerSelector(v.title)}`);
          await h.waitFor({ state: 'visible', timeout: 60_000 });
          if ((await h.getAttribute('aria-expanded')) !== 'true') await h.click();
        }
      }
      await page.locator(`.part.sidebar ${headerSelector('Chat')}`).waitFor({ state: 'visible', timeout: 60_000 });
      const panesAt = Date.now();
      const shownAt = {};
      let probes = {};
      for (;;) {
        probes = {};
        for (const v of VIEWS) {
          if (shownAt[v.page]) continue;
          const p = await probe(page, v.title).catch((err) => ({ host: false, error: err.message }));
          probes[v.page] = p;
          if (isShown(p)) shownAt[v.page] = Date.now() - panesAt;
        }
        if (VIEWS.every((v) => shownAt[v.page]) || Date.now() > panesAt + waitMs) break;
        await sleep(500);
      }
      // Log lines carry milliseconds of the extension host's clock (the same machine).
      const lines = handshakeLines(ctx.stack.logsRoot).filter((l) => l.at >= started - 1000);
      const rec = { run, workbenchMs: panesAt - started, views: {}, events: events.filter((e) => e.at >= started).map((e) => `${e.at - panesAt} ms ${e.text}`) };
      for (const v of VIEWS) {
        const mine = lines.filter((l) => l.page === v.page).map((l) => `${l.at - panesAt} ms ${l.what}`);
        if (shownAt[v.page]) rec.views[v.page] = { shown: true, ms: shownAt[v.page], host: mine };
        else rec.views[v.page] = { shown: false, stage: stageOf(probes[v.page], mine.some((l) => /page ready/.test(l))), probe: probes[v.page], host: mine };
      }
      records.push(rec);
      const cells = VIEWS.map((v) => {
        const r = rec.views[v.page];
        return r.shown ? `${v.page} ${(r.ms / 1000).toFixed(1)} s` : `${v.page} BLANK (${r.stage})`;
      });
      log(`[reloads] ${run === 0 ? 'load 0   ' : `reload ${String(run).padStart(2)}`}  workbench ${(rec.workbenchMs / 1000).toFixed(1)} s  ${cells.join('  ')}`);
      for (const v of VIEWS) {
        const r = rec.views[v.page];
        if (r.shown) continue;
        log(`           ${v.page}: ${JSON.stringify(r.probe)}`);
        log(`           ${v.page} extension: ${r.host.join(' | ') || '(no lines)'}`);
      }
    }
  } finally {
    await cleanup();
    stopSignals();
  }
  const counted = records.filter((r) => r.run > 0);
  const summary = {};
  for (const v of VIEWS) {
    const blank = counted.filter((r) => !r.views[v.page].shown);
    summary[v.page] = {
      blank: blank.length,
      of: counted.length,
      stages: blank.map((r) => `${r.run}: ${r.views[v.page].stage}`),
      medianShownMs: median(counted.filter((r) => r.views[v.page].shown).map((r) => r.views[v.page].ms)),
    };
  }
  const anyBlank = counted.filter((r) => VIEWS.some((v) => !r.views[v.page].shown)).length;
  log(`[reloads] ${counted.length} reloads, ${anyBlank} with a blank view after ${waitMs / 1000} s`);
  for (const v of VIEWS) {
    const s = summary[v.page];
    log(`[reloads]   ${v.title}: blank ${s.blank}/${s.of}${s.stages.length ? ` (reload: stopped at — ${s.stages.join(', ')})` : ''}; median time to content ${s.medianShownMs === null ? '-' : `${(s.medianShownMs / 1000).toFixed(1)} s`}`);
  }
  if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify({ records, summary }, null, 2));
  return { records, summary, anyBlank };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await runReloads({ runs: Number(arg('runs', 20)), waitMs: Number(arg('wait', 20)) * 1000, traceSw: !process.argv.includes('--no-trace'), jsonPath: arg('json') });
    process.exit(0);
  } catch (err) {
    console.error(`[reloads] FAILED: ${err.message}`);
    process.exit(1);
  }
}
