// UI test in a real VS Code (the demo: code-server's workbench + the packaged .vsix + a copy of
// the sample novel), driven by playwright-core in Debian's Chromium. Opens the Worldline
// container, checks its three webview views render, and saves docs/screenshot.png (1280x800).
//
//   node test/ui/screenshot.mjs          prints "ui: N passed, N failed", exit 1 on failure
//   import { runUiTests } from './test/ui/screenshot.mjs'
//
// Env: WORLDLINE_SCREENSHOT=<path> (default docs/screenshot.png). On failure a diagnostic
// screenshot goes to test-results/ui-failure.png instead, docs/ is left alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemo } from '../../scripts/demo.mjs';
import { REPO_ROOT } from '../../scripts/vscode/install.mjs';
import { launchBrowser } from '../../scripts/vscode/server.mjs';

const VIEWPORT = { width: 1280, height: 800 };
// Webview views (their content is checked) and the native Worldlines tree.
const VIEWS = [
  { id: 'worldline.chat', title: 'Chat' },
  { id: 'worldline.state', title: 'Scene State' },
  { id: 'worldline.worldlineGraph', title: 'Worldline Graph' },
];
const TREE = { id: 'worldline.worldlines', title: 'Worldlines' };
const STEP_TIMEOUT_MS = 60_000;
const WEBVIEW_RETRIES = 3;
const HARD_TIMEOUT_MS = Number(process.env.WORLDLINE_UI_TIMEOUT_MS) || 8 * 60_000;

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]);
}

async function poll(fn, { timeoutMs = STEP_TIMEOUT_MS, intervalMs = 250, what }) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} (waited ${Math.round(timeoutMs / 1000)} s)${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A view's header in the side bar, found by its aria-label ("<title> Section"). */
function paneHeader(page, title) {
  return page.locator(`.part.sidebar ${headerSelector(title)}`);
}

function headerSelector(title) {
  return `.pane-header[aria-label="${title} Section"]`;
}

/**
 * The rendered document of the webview that sits over a view's pane body. VS Code draws
 * webviews in iframes layered over the workbench, so they are matched by position.
 * Returns {text, elements, controls} of the inner content frame, or null while not rendered.
 */
async function webviewContent(page, title) {
  const body = page.locator('.part.sidebar .pane', { has: page.locator(headerSelector(title)) }).locator('.pane-body');
  const paneBox = await body.boundingBox({ timeout: 2000 });
  if (!paneBox || paneBox.height < 20) return null;
  for (const el of await page.$$('iframe.webview')) {
    const box = await el.boundingBox();
    if (!box || box.width < 20 || box.height < 20) continue;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const inside = cx >= paneBox.x && cx <= paneBox.x + paneBox.width && cy >= paneBox.y && cy <= paneBox.y + paneBox.height;
    if (!inside) continue;
    const outer = await el.contentFrame();
    for (const inner of outer?.childFrames() ?? []) {
      const info = await inner
        .evaluate(() => ({
          text: (document.body?.innerText ?? '').trim(),
          elements: document.body ? document.body.querySelectorAll('*').length : 0,
          controls: document.querySelectorAll('textarea, input, button, select').length,
          ready: document.readyState,
        }))
        .catch(() => null);
      if (info && info.ready === 'complete' && info.elements > 0 && (info.text || info.controls)) return info;
    }
  }
  return null;
}

/** The inner document frame of the webview over a view's pane (see webviewContent). */
async function webviewFrame(page, title) {
  const body = page.locator('.part.sidebar .pane', { has: page.locator(headerSelector(title)) }).locator('.pane-body');
  const paneBox = await body.boundingBox({ timeout: 2000 });
  if (!paneBox || paneBox.height < 20) return null;
  for (const el of await page.$$('iframe.webview')) {
    const box = await el.boundingBox();
    if (!box) continue;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    if (cx < paneBox.x || cx > paneBox.x + paneBox.width || cy < paneBox.y || cy > paneBox.y + paneBox.height) continue;
    const outer = await el.contentFrame();
    for (const inner of outer?.childFrames() ?? []) {
      const ok = await inner.evaluate(() => document.readyState === 'complete' && !!document.body && document.body.children.length > 0).catch(() => false);
      if (ok) return inner;
    }
  }
  return null;
}

const HOSTILE = '<img src=x onerror=alert(1)>';
const HOSTILE_REPLY = `${HOSTILE}<script>alert(2)</script> 这是模型写的。`;

/** The demo story, except that an instruction holding "XSS" gets hostile text from both models. */
function hostileReply(req, demoReply) {
  const users = (req.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content ?? ''));
  const scribe = !req.stream && /你是场记|You are the scribe/.test(req.system ?? '');
  if (scribe && users.some((u) => u.includes('XSS'))) {
    return { text: JSON.stringify({ patch: { characters: { [HOSTILE]: { status: HOSTILE, notes: '<b>bold?</b>' } }, facts: [HOSTILE_REPLY] } }) };
  }
  if (!scribe && (users.at(-1) ?? '').includes('XSS')) {
    // Prose first (the scribe only runs after a turn that wrote prose), then the hostile reply.
    if (req.messages?.at(-1)?.role === 'tool') return { text: HOSTILE_REPLY };
    return { text: '', toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: `\n${HOSTILE}\n` }) }] };
  }
  return demoReply(req);
}

/** Runs a palette command by its title; `answers` are typed into the input boxes it opens. */
async function runCommand(page, title, answers = []) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  for (const answer of answers) {
    await page.waitForTimeout(400);
    await input.waitFor({ timeout: 10_000 });
    await input.fill(answer);
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
  }
}

async function sendInstruction(page, text, expect) {
  const frame = await poll(() => webviewFrame(page, 'Chat'), { what: 'the Chat webview frame' });
  const input = frame.locator('textarea[aria-label]').first();
  await poll(async () => !(await input.isDisabled()), { what: 'the chat input to be free', timeoutMs: 60_000 });
  await input.fill(text);
  await input.press('Enter');
  await poll(async () => expect.test(await frame.locator('#log').innerText()), { what: `the reply ${expect}`, timeoutMs: 60_000 });
  // The scribe runs after the reply; a save waits for it anyway.
  await page.waitForTimeout(1500);
}

/** Stops the demo and Chromium of a run in progress (for Ctrl+C). */
let activeCleanup = null;

function pngSize(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('ascii', 1, 4) !== 'PNG') throw new Error(`${file} is not a PNG`);
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * @param {{screenshotPath?: string, log?: (s: string) => void}} [opts]
 * @returns {Promise<{passed: number, failed: number, failures: string[]}>}
 */
export async function runUiTests(opts = {}) {
  const screenshotPath = path.resolve(
    opts.screenshotPath ?? process.env.WORLDLINE_SCREENSHOT ?? path.join(REPO_ROOT, 'docs', 'screenshot.png'),
  );
  const log = opts.log ?? ((s) => console.log(`[ui] ${s}`));
  const results = { passed: 0, failed: 0, failures: [] };
  const ctx = { demo: null, browser: null, page: null };
  activeCleanup = async () => {
    if (ctx.browser) await ctx.browser.close().catch(() => {});
    if (ctx.demo) await ctx.demo.stop();
  };
  let blocked = null; // name of the failed step that the remaining ones depend on

  const test = async (name, fn, { critical = true } = {}) => {
    if (blocked) {
      results.failed += 1;
      results.failures.push(`${name}: not run, "${blocked}" failed`);
      log(`✗ ${name} (not run)`);
      return;
    }
    const started = Date.now();
    try {
      await withTimeout(Promise.resolve().then(fn), STEP_TIMEOUT_MS * 2, name);
      results.passed += 1;
      log(`✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (err) {
      results.failed += 1;
      results.failures.push(`${name}: ${err.message}`);
      log(`✗ ${name}: ${err.message}`);
      if (critical) blocked = name;
    }
  };

  const all = async () => {
    // The sample novel is Chinese: without a CJK font the README picture shows empty boxes.
    await test('a CJK font is installed (the sample novel is Chinese)', async () => {
      let out = '';
      try {
        out = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8', timeout: 10_000 });
      } catch (err) {
        throw new Error(`fc-list failed (${err.message}); apt-get install -y fontconfig fonts-noto-cjk`);
      }
      if (!out.trim()) throw new Error('no font covers Chinese: apt-get install -y fonts-noto-cjk');
    }, { critical: false });
    await test('the demo starts (build, .vsix, VS Code server)', async () => {
      ctx.demo = await startDemo({ port: 0, modelReply: hostileReply });
    });
    await test('the workbench loads with the sample novel', async () => {
      ctx.browser = await launchBrowser();
      ctx.page = await ctx.browser.newPage({ viewport: VIEWPORT });
      await ctx.page.goto(ctx.demo.url, { waitUntil: 'domcontentloaded', timeout: STEP_TIMEOUT_MS });
      await ctx.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: STEP_TIMEOUT_MS });
      // The explorer shows the opened folder: the workspace really is the sample novel copy.
      await ctx.page
        .locator('.part.sidebar .pane-header', { hasText: path.basename(ctx.demo.workspace) })
        .first()
        .waitFor({ timeout: STEP_TIMEOUT_MS });
    });
    await test('a chapter opens in the editor', async () => {
      const page = ctx.page;
      // Quick Open's file search can be slow on a loaded machine: try a few times.
      for (let attempt = 1; ; attempt++) {
        try {
          await page.locator('.part.editor').click({ position: { x: 400, y: 300 } });
          await page.keyboard.press('Control+P');
          await page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
          await page.keyboard.type('01.md');
          await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 20_000 });
          break;
        } catch (err) {
          await page.keyboard.press('Escape').catch(() => {});
          if (attempt >= 3) throw err;
          log(`  Quick Open found nothing yet, retrying (${attempt}/3)`);
        }
      }
      await page.keyboard.press('Enter');
      await page.locator('.part.editor .tab', { hasText: '01.md' }).waitFor({ timeout: 10_000 });
      await page.locator('.part.editor .view-lines').first().waitFor({ timeout: 10_000 });
    }, { critical: false });
    await test('the activity bar has the Worldline item and it opens the container', async () => {
      const item = ctx.page.locator('.part.activitybar [aria-label*="Worldline"]').first();
      await item.waitFor({ timeout: STEP_TIMEOUT_MS });
      await item.click();
      await poll(
        async () => /worldline/i.test((await ctx.page.locator('.part.sidebar .composite.title').first().innerText()) ?? ''),
        { what: 'side bar title "Worldline" did not appear' },
      );
    });
    for (const view of [...VIEWS, TREE]) {
      await test(`the "${view.title}" view is visible and expanded`, async () => {
        const header = paneHeader(ctx.page, view.title);
        await header.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        await poll(async () => (await header.getAttribute('aria-expanded')) === 'true', {
          what: `"${view.title}" did not expand`,
          timeoutMs: 10_000,
        });
      }, { critical: false });
    }
    for (const view of VIEWS) {
      await test(`the "${view.title}" webview renders its content`, async () => {
        // code-server serves every webview from one origin, so the webviews' service-worker
        // registrations race and a view sometimes stays blank (about 1 run in 3 here). Hiding
        // and showing the view recreates its webview; the check still needs real content.
        let info = null;
        for (let attempt = 0; attempt <= WEBVIEW_RETRIES && !info; attempt++) {
          if (attempt > 0) {
            log(`  ${view.title}: still blank, collapsing and expanding the view (retry ${attempt}/${WEBVIEW_RETRIES})`);
            const header = paneHeader(ctx.page, view.title);
            await header.click();
            await ctx.page.waitForTimeout(500);
            await header.click();
          }
          info = await poll(() => webviewContent(ctx.page, view.title), {
            what: `no rendered webview content over the "${view.title}" view`,
            timeoutMs: 15_000,
          }).catch(() => null);
        }
        if (!info) {
          throw new Error(`no rendered webview content over the "${view.title}" view after ${WEBVIEW_RETRIES} retries`);
        }
        log(`  ${view.title}: ${info.elements} elements, ${info.controls} controls, text "${info.text.slice(0, 60).replace(/\s+/g, ' ')}"`);
      }, { critical: false });
    }
    await test('an instruction typed into the Chat webview streams a reply and writes the chapter', async () => {
      const frame = await poll(() => webviewFrame(ctx.page, 'Chat'), { what: 'the Chat webview frame' });
      const input = frame.locator('textarea[aria-label]').first();
      await input.waitFor({ timeout: 10_000 });
      await input.fill('写沈砚住店，并打听沈家。');
      await input.press('Enter');
      await poll(async () => /写好了/.test(await frame.locator('#log').innerText()), { what: 'the streamed reply "写好了…"', timeoutMs: 60_000 });
      const chapter = path.join(ctx.demo.workspace, 'chapters', '01.md');
      await poll(() => fs.readFileSync(chapter, 'utf8').includes('姓沈的人家'), { what: 'the chapter file to hold the new prose', timeoutMs: 20_000 });
      // The scribe's patch reaches the Scene State view.
      const state = await poll(() => webviewFrame(ctx.page, 'Scene State'), { what: 'the Scene State frame' });
      await poll(async () => /起了疑心/.test(await state.locator('main').innerText()), { what: 'the scribe\'s patch in the Scene State view', timeoutMs: 30_000 });
      await ctx.page.waitForTimeout(800);
    });
    // The README shows this picture; only replace it when everything above passed.
    await test(`the screenshot is saved (${path.relative(REPO_ROOT, screenshotPath)}, ${VIEWPORT.width}x${VIEWPORT.height})`, async () => {
      if (results.failed > 0) throw new Error('not taken: an earlier check failed (see test-results/ui-failure.png)');
      // More room for the conversation: the worldline views are empty so far.
      for (const title of ['Worldlines', 'Worldline Graph']) {
        const header = paneHeader(ctx.page, title);
        if ((await header.getAttribute('aria-expanded')) === 'true') await header.click().catch(() => {});
      }
      await ctx.page.waitForTimeout(800);
      // Focus the editor (no focus ring on a view header) and park the mouse (no hover tooltip).
      await ctx.page.locator('.part.editor .view-lines').first().click({ timeout: 5000 }).catch(() => {});
      await ctx.page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
      await ctx.page.waitForTimeout(500);
      fs.mkdirSync(path.dirname(screenshotPath), { recursive: true });
      await ctx.page.screenshot({ path: screenshotPath });
      const size = pngSize(screenshotPath);
      if (size.width !== VIEWPORT.width || size.height !== VIEWPORT.height) {
        throw new Error(`screenshot is ${size.width}x${size.height}`);
      }
    });
    await test('model text shows literally in the Chat and Scene State views (no HTML, no script)', async () => {
      const dialogs = [];
      ctx.page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
      const chat = await poll(() => webviewFrame(ctx.page, 'Chat'), { what: 'the Chat webview frame' });
      const input = chat.locator('textarea[aria-label]').first();
      await input.fill('XSS 测试');
      await input.press('Enter');
      await poll(async () => (await chat.locator('#log').innerText()).includes(HOSTILE_REPLY.trim()), { what: 'the hostile reply shown as text', timeoutMs: 60_000 });
      const injected = await chat.evaluate(() => document.querySelectorAll('#log img, #log script, #log b').length);
      if (injected !== 0) throw new Error(`the chat turned model text into ${injected} element(s)`);
      const state = await poll(() => webviewFrame(ctx.page, 'Scene State'), { what: 'the Scene State frame' });
      await poll(async () => (await state.locator('main').innerText()).includes('<img src=x onerror=alert(1)>'), { what: 'the hostile character name shown literally', timeoutMs: 30_000 });
      const stateInjected = await state.evaluate(() => document.querySelectorAll('main img, main script, main b').length);
      if (stateInjected !== 0) throw new Error(`the Scene State view turned model text into ${stateInjected} element(s)`);
      if (dialogs.length) throw new Error(`a script ran: ${dialogs.join(', ')}`);
      await ctx.page.screenshot({ path: path.join(REPO_ROOT, 'test-results', 'ui-literal-text.png') }).catch(() => {});
    }, { critical: false });
    await test('save, write on, load the first save, write differently, save: the graph shows two worldlines', async () => {
      const page = ctx.page;
      await runCommand(page, 'Worldline: Save Point', ['雨夜问名']);
      await sendInstruction(page, '青梧夜里来柴房。', /写好了[^]*写好了/);
      await runCommand(page, 'Worldline: Save Point', ['夜访柴房']);
      await runCommand(page, 'Worldline: Load Save', ['雨夜问名']);
      await sendInstruction(page, '沈砚第二天一早去渡口。', /写好了[^]*写好了/);
      await runCommand(page, 'Worldline: Save Point', ['清晨渡口']);
      for (const title of ['Worldlines', 'Worldline Graph']) {
        const header = paneHeader(page, title);
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      }
      // Scene State folds away so the graph has room.
      const state = paneHeader(page, 'Scene State');
      if ((await state.getAttribute('aria-expanded')) === 'true') await state.click();
      const tree = page.locator('.part.sidebar .pane', { has: page.locator(headerSelector('Worldlines')) });
      await poll(async () => (await tree.locator('.monaco-list-row').count()) >= 5, { what: 'two worldlines with their saves in the tree', timeoutMs: 30_000 });
      const treeText = await tree.innerText();
      if (!/主线/.test(treeText) || !/从「雨夜问名」分出/.test(treeText)) throw new Error(`the tree shows: ${treeText.replace(/\s+/g, ' ')}`);
      let graph = null;
      for (let attempt = 0; attempt <= WEBVIEW_RETRIES && !graph; attempt++) {
        if (attempt > 0) {
          const header = paneHeader(page, 'Worldline Graph');
          await header.click();
          await page.waitForTimeout(500);
          await header.click();
        }
        graph = await poll(async () => {
          const f = await webviewFrame(page, 'Worldline Graph');
          return f && (await f.locator('circle.dot').count()) >= 3 ? f : null;
        }, { what: 'the graph with three saves', timeoutMs: 15_000 }).catch(() => null);
      }
      if (!graph) throw new Error('the worldline graph did not render three saves');
      const forks = await graph.locator('path.edge.fork').count();
      if (forks !== 1) throw new Error(`expected one fork edge, saw ${forks}`);
      await page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
      await page.waitForTimeout(600);
      const shot = path.join(path.dirname(screenshotPath), 'worldlines.png');
      await page.screenshot({ path: shot });
      log(`  worldline graph screenshot: ${path.relative(REPO_ROOT, shot)}`);
    }, { critical: false });
  };

  try {
    await withTimeout(all(), HARD_TIMEOUT_MS, 'UI tests');
  } catch (err) {
    results.failed += 1;
    results.failures.push(`UI tests: ${err.message}`);
    log(`✗ ${err.message}`);
  } finally {
    if (results.failed > 0 && ctx.page) {
      const failShot = path.join(REPO_ROOT, 'test-results', 'ui-failure.png');
      try {
        fs.mkdirSync(path.dirname(failShot), { recursive: true });
        await withTimeout(ctx.page.screenshot({ path: failShot }), 15_000, 'failure screenshot');
        log(`failure screenshot: ${failShot}`);
      } catch {
        /* the page is gone */
      }
    }
    if (ctx.browser) await withTimeout(ctx.browser.close(), 10_000, 'closing Chromium').catch(() => {});
    if (ctx.demo) await ctx.demo.stop();
    activeCleanup = null;
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { onShutdownSignal } = await import('../../scripts/vscode/server.mjs');
  onShutdownSignal(() => activeCleanup?.());
  const r = await runUiTests();
  for (const f of r.failures) console.log(`FAIL ${f}`);
  console.log(`ui: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed > 0 ? 1 : 0);
}
