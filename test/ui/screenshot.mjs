// UI tests in a real VS Code (the demo: code-server's workbench + the packaged .vsix + a copy of
// the sample novel), driven by playwright-core in Debian's Chromium. Opens the Worldline
// container, checks its three webview views render, writes a few turns, saves and loads, and
// saves docs/screenshot.png and docs/worldlines.png (1280x800); then issue 14's checks
// (test/ui/chatChecks.mjs): the palette in and outside a novel, the turn pickers, a save click
// that only selects, and the Chat keeping the reader's place.
//
//   node test/ui/screenshot.mjs          prints "ui: N passed, N failed", exit 1 on failure
//   import { runUiTests } from './test/ui/screenshot.mjs'
//
// Env: WORLDLINE_SCREENSHOT=<path> (default docs/screenshot.png; docs/worldlines.png goes next to
// it). On failure a diagnostic screenshot goes to test-results/ui-failure.png, and the README
// picture is not replaced when a step before it failed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemo } from '../../scripts/demo.mjs';
import { REPO_ROOT } from '../../scripts/vscode/install.mjs';
import { launchBrowser } from '../../scripts/vscode/server.mjs';
import { chatChecks } from './chatChecks.mjs';
import {
  STEP_TIMEOUT_MS, chatFrame, folderText, headerSelector, pane, paneHeader, openPalette, poll, runCommand, webviewContent, webviewFrame, withTimeout,
} from './workbench.mjs';

const VIEWPORT = { width: 1280, height: 800 };
// Webview views (their content is checked) and the native Worldlines tree.
const VIEWS = [
  { id: 'worldline.chat', title: 'Chat' },
  { id: 'worldline.state', title: 'Scene State' },
  { id: 'worldline.worldlineGraph', title: 'Worldline Graph' },
];
const TREE = { id: 'worldline.worldlines', title: 'Worldlines' };
const WEBVIEW_RETRIES = 3;
const HARD_TIMEOUT_MS = Number(process.env.WORLDLINE_UI_TIMEOUT_MS) || 8 * 60_000;

const HOSTILE = '<img src=x onerror=alert(1)>';
const HOSTILE_REPLY = `${HOSTILE}<script>alert(2)</script> 这是模型写的。`;

/**
 * The demo story, except that an instruction holding "XSS" gets hostile text from both models.
 * `model` counts the scribe's calls and says how late the scribe answers (chatChecks.mjs scrolls
 * the Chat while it runs).
 */
function hostileReply(req, demoReply, model) {
  const users = (req.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content ?? ''));
  const scribe = !req.stream && /你是场记|You are the scribe/.test(req.system ?? '');
  if (scribe) model.scribeCalls += 1;
  if (scribe && model.scribeDelayMs > 0) return { ...scripted(req, demoReply, users, scribe), delayMs: model.scribeDelayMs };
  return scripted(req, demoReply, users, scribe);
}

function scripted(req, demoReply, users, scribe) {
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

/** Sends an instruction and waits for the reply `expect` and the end of the turn (the scribe's too). */
async function sendInstruction(page, text, expect) {
  const frame = await chatFrame(page);
  const input = frame.locator('textarea[aria-label]').first();
  await poll(async () => !(await input.isDisabled()), { what: 'the chat input to be free', timeoutMs: 60_000 });
  await input.fill(text);
  await input.press('Enter');
  await poll(async () => expect.test(await frame.locator('#log').innerText()), { what: `the reply ${expect}`, timeoutMs: 60_000 });
  // A save waits for the scribe anyway; the phase line is empty once the turn is over.
  await poll(async () => (await frame.locator('#log [data-testid="streaming"]').count()) === 0 && (await frame.locator('#composer .phase').innerText()).trim() === '', { what: 'the turn to end', timeoutMs: 60_000 });
}

/** Stops the demo and Chromium of a run in progress (for Ctrl+C). */
let activeCleanup = null;

/** Waits until the side bar's panes keep their heights (a collapse or a drag animates nothing, but lays out late). */
async function settledLayout(page) {
  let last = '';
  await poll(async () => {
    const now = JSON.stringify(await page.evaluate(() => Array.from(document.querySelectorAll('.part.sidebar .pane'), (p) => Math.round(p.getBoundingClientRect().height))));
    const same = now === last;
    last = now;
    return same;
  }, { what: 'the side bar layout to settle', timeoutMs: 10_000, intervalMs: 200 });
}

/**
 * Drags a side-bar sash: 'vertical' is the side bar's right edge (moved to x = `to`), 'horizontal'
 * the one under the Chat (moved to y = `to`).
 */
async function dragSash(page, orientation, to) {
  const at = await page.evaluate((orientation) => {
    const bar = document.querySelector('.part.sidebar').getBoundingClientRect();
    const chat = document.querySelector('.part.sidebar .pane-header[aria-label="Chat Section"]')?.closest('.pane')?.getBoundingClientRect();
    for (const s of document.querySelectorAll(`.monaco-sash.${orientation}:not(.disabled)`)) {
      const r = s.getBoundingClientRect();
      const x = r.x + r.width / 2;
      const y = r.y + r.height / 2;
      if (orientation === 'vertical' && Math.abs(x - bar.right) < 5 && y > bar.top && y < bar.bottom) return { x, y: bar.top + bar.height / 2 };
      if (orientation === 'horizontal' && chat && Math.abs(y - chat.bottom) < 5 && x > bar.left && x < bar.right) return { x, y };
    }
    return null;
  }, orientation);
  if (!at) {
    const seen = await page.evaluate(() => Array.from(document.querySelectorAll('.part.sidebar .monaco-sash, .monaco-grid-view > .monaco-sash'), (s) => `${s.className} @${JSON.stringify(s.getBoundingClientRect())}`));
    throw new Error(`no ${orientation} sash to drag: ${seen.join('; ')}`);
  }
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  const steps = 8;
  for (let i = 1; i <= steps; i++) {
    const f = i / steps;
    await page.mouse.move(orientation === 'vertical' ? at.x + (to - at.x) * f : at.x, orientation === 'vertical' ? at.y : at.y + (to - at.y) * f);
  }
  await page.mouse.up();
}

function pngSize(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('ascii', 1, 4) !== 'PNG') throw new Error(`${file} is not a PNG`);
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * @param {{screenshotPath?: string, log?: (s: string) => void}} [opts]
 * @returns {Promise<{passed: number, failed: number, failures: string[], figures: Record<string, unknown>}>}
 */
export async function runUiTests(opts = {}) {
  const screenshotPath = path.resolve(
    opts.screenshotPath ?? process.env.WORLDLINE_SCREENSHOT ?? path.join(REPO_ROOT, 'docs', 'screenshot.png'),
  );
  const log = opts.log ?? ((s) => console.log(`[ui] ${s}`));
  const results = { passed: 0, failed: 0, failures: [], figures: {} };
  const ctx = { demo: null, browser: null, page: null, model: { scribeCalls: 0, scribeDelayMs: 0 } };
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
      ctx.demo = await startDemo({ port: 0, modelReply: (req, demoReply) => hostileReply(req, demoReply, ctx.model) });
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
        // code-server serves every webview from one origin: one webview's service worker can
        // replace another's while it starts, and that view's host page never creates the frame
        // for our HTML (test/ui/reloads.mjs: 17–18 of 20 reloads had a blank view). Hiding and
        // showing the view makes a new host page; the check still needs real content.
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
      await poll(async () => (await frame.locator('#composer .phase').innerText()).trim() === '', { what: 'the turn to end', timeoutMs: 30_000 });
    });
    await test('a reply shows Regenerate, Copy and More actions at rest; the menu holds the others', async () => {
      const chat = await chatFrame(ctx.page);
      await ctx.page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
      const reply = chat.locator('#log .msg.assistant[data-id]').last();
      const shown = await reply.locator('.actions').evaluate((bar) => Array.from(bar.querySelectorAll(':scope > button, :scope > .more > button')).map((b) => {
        let opacity = 1;
        for (let e = b; e && e !== document.body; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
        const r = b.getBoundingClientRect();
        return { action: b.getAttribute('data-action'), label: b.getAttribute('aria-label'), opacity, visible: r.width > 4 && r.height > 4 };
      }));
      const names = shown.map((b) => b.action).join(', ');
      if (names !== 'regenerate, copy, more') throw new Error(`the reply's toolbar shows ${names}`);
      const faint = shown.filter((b) => !b.visible || b.opacity < 0.9);
      if (faint.length) throw new Error(`faint or hidden at rest: ${faint.map((b) => `${b.label} (opacity ${b.opacity.toFixed(2)})`).join(', ')}`);
      await reply.locator('.actions [data-action="more"]').click();
      const items = await reply.locator('[role="menu"] [role="menuitem"]').evaluateAll((xs) => xs.map((x) => x.getAttribute('data-action')));
      await ctx.page.keyboard.press('Escape');
      await reply.locator('[role="menu"]').waitFor({ state: 'detached', timeout: 5000 });
      for (const want of ['edit', 'hide', 'branchHere', 'restoreProse', 'restoreBoth', 'showChanges']) {
        if (!items.includes(want)) throw new Error(`"More actions" lacks ${want}: ${items.join(', ')}`);
      }
    }, { critical: false });
    // The README shows this picture; only replace it when everything above passed.
    await test(`the screenshot is saved (${path.relative(REPO_ROOT, screenshotPath)}, ${VIEWPORT.width}x${VIEWPORT.height})`, async () => {
      if (results.failed > 0) throw new Error('not taken: an earlier check failed (see test-results/ui-failure.png)');
      const page = ctx.page;
      // The conversation gets the room: the worldline views are empty so far, the side bar a
      // little wider, and the Chat most of its height over the Scene State.
      for (const title of ['Worldlines', 'Worldline Graph']) {
        const header = paneHeader(page, title);
        if ((await header.getAttribute('aria-expanded')) === 'true') await header.click().catch(() => {});
      }
      await settledLayout(page);
      await dragSash(page, 'vertical', 420);
      await settledLayout(page);
      const chatBox = await pane(page, 'Chat').boundingBox();
      const stateBox = await pane(page, 'Scene State').boundingBox();
      await dragSash(page, 'horizontal', Math.round(chatBox.y + (chatBox.height + stateBox.height) * 0.7));
      await settledLayout(page);
      const chatHeight = Math.round((await pane(page, 'Chat').boundingBox()).height);
      log(`  Chat pane ${Math.round(chatBox.height)} -> ${chatHeight} px, Scene State ${Math.round(stateBox.height)} -> ${Math.round((await pane(page, 'Scene State').boundingBox()).height)} px`);
      const chat = await chatFrame(page);
      await chat.evaluate(() => { const l = document.getElementById('log'); l.scrollTop = l.scrollHeight; });
      // Focus the editor (no focus ring on a view header) and park the mouse (no hover tooltip).
      await page.locator('.part.editor .view-lines').first().click({ timeout: 5000 }).catch(() => {});
      await page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
      // The whole first turn is in view: the instruction and the reply with its actions.
      await poll(() => chat.evaluate(() => {
        const log = document.getElementById('log').getBoundingClientRect();
        const first = document.querySelector('#log .msg.user[data-id]');
        const actions = document.querySelector('#log .msg.assistant[data-id] .actions');
        return !!first && !!actions && first.getBoundingClientRect().top >= log.top - 1 && actions.getBoundingClientRect().bottom <= log.bottom + 1;
      }), { what: 'the instruction and the whole reply in view of the Chat', timeoutMs: 5000 }).catch(async (err) => {
        const where = await chat.evaluate(() => {
          const box = (e) => (e ? Math.round(e.getBoundingClientRect().top) + '..' + Math.round(e.getBoundingClientRect().bottom) : 'none');
          return `log ${box(document.getElementById('log'))}, instruction ${box(document.querySelector('#log .msg.user[data-id]'))}, reply actions ${box(document.querySelector('#log .msg.assistant[data-id] .actions'))}`;
        });
        throw new Error(`${err.message}: ${where}`);
      });
      // A dragged sash stays lit a moment after the mouse left it, and then fades out.
      await poll(() => page.evaluate(() => Array.from(document.querySelectorAll('.monaco-sash')).every((s) => !s.matches('.hover, .active')
        && /^(transparent|rgba\(0, 0, 0, 0\))$/.test(getComputedStyle(s, '::before').backgroundColor))), { what: 'the dragged sash to go quiet', timeoutMs: 5000, intervalMs: 100 });
      fs.mkdirSync(path.dirname(screenshotPath), { recursive: true });
      await ctx.page.screenshot({ path: screenshotPath });
      const size = pngSize(screenshotPath);
      if (size.width !== VIEWPORT.width || size.height !== VIEWPORT.height) {
        throw new Error(`screenshot is ${size.width}x${size.height}`);
      }
    }, { critical: false });
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
      await poll(async () => (await chat.locator('#composer .phase').innerText()).trim() === '', { what: 'the turn to end', timeoutMs: 30_000 });
    }, { critical: false });
    await test('save, write on, load the first save, write differently, save: the graph shows two worldlines', async () => {
      const page = ctx.page;
      // What loading this save must bring back (test/ui/chatChecks.mjs loads it from the tree).
      ctx.proseAt = { 雨夜问名: folderText(path.join(ctx.demo.workspace, 'chapters')) };
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
      await settledLayout(page);
      const shot = path.join(path.dirname(screenshotPath), 'worldlines.png');
      await page.screenshot({ path: shot });
      log(`  worldline graph screenshot: ${path.relative(REPO_ROOT, shot)}`);
    }, { critical: false });
    await chatChecks({ test, ctx, log, figures: results.figures });
    await test('the Codex view lists the sample entries by kind and the roster names without one (docs/codex.png)', async () => {
      const page = ctx.page;
      // The Codex view alone in the side bar, beside an entry open in the editor.
      for (const title of ['Chat', 'Scene State', 'Worldlines', 'Worldline Graph']) {
        const header = paneHeader(page, title);
        if ((await header.count()) && (await header.getAttribute('aria-expanded')) === 'true') await header.click();
      }
      const header = paneHeader(page, 'Codex');
      await header.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      const codex = pane(page, 'Codex');
      const text = await poll(async () => {
        const t = await codex.innerText();
        return /镇北渡口/.test(t) && /称谓/.test(t) && /沈砚/.test(t) ? t : null;
      }, { what: 'the sample entries and a roster name without an entry in the Codex view', timeoutMs: 30_000 });
      log(`  Codex view: ${text.replace(/\s+/g, ' ').slice(0, 120)}`);
      await page.locator('.part.editor').click({ position: { x: 400, y: 300 } });
      await runCommand(page, 'View: Close All Editors').catch(() => {});
      await codex.locator('.monaco-list-row', { hasText: '镇北渡口' }).first().click();
      await page.locator('.part.editor .tab', { hasText: '镇北渡口' }).waitFor({ timeout: 15_000 });
      await page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
      await settledLayout(page);
      const shot = path.join(path.dirname(screenshotPath), 'codex.png');
      await page.screenshot({ path: shot });
      log(`  codex screenshot: ${path.relative(REPO_ROOT, shot)}`);
    }, { critical: false });
    await test('the editor context menu offers the writing tools on a selected passage (docs/writing-tools.png)', async () => {
      const page = ctx.page;
      await page.locator('.part.editor').click({ position: { x: 400, y: 300 } }).catch(() => {});
      await runCommand(page, 'View: Close All Editors').catch(() => {});
      // The chapter, opened through Quick Open as a novelist would.
      await openPalette(page, 'chapters/01.md');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: '01.md' }).first().waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
      const lines = page.locator('.part.editor .monaco-editor .view-lines .view-line');
      await poll(async () => ((await lines.count()) >= 3 ? true : null), { what: 'the chapter open in the editor', timeoutMs: 30_000 });
      // A passage: the first line with prose on it, selected whole.
      let line = null;
      for (let i = 0; i < (await lines.count()) && !line; i++) {
        const text = (await lines.nth(i).innerText()).trim();
        if (text.length > 12 && !text.startsWith('#')) line = lines.nth(i);
      }
      if (!line) throw new Error('no line of prose to select in chapters/01.md');
      await line.click({ clickCount: 3 });
      const box = await line.boundingBox();
      await page.mouse.click(box.x + Math.min(120, box.width / 2), box.y + box.height / 2, { button: 'right' });
      const menu = page.locator('.context-view .monaco-menu');
      await menu.first().waitFor({ state: 'visible', timeout: 15_000 });
      const item = menu.locator('.action-item', { hasText: /^Worldline/ }).first();
      await item.hover();
      await poll(async () => ((await page.locator('.context-view .monaco-menu').count()) >= 2 ? true : null), { what: 'the Worldline submenu', timeoutMs: 10_000 });
      const sub = page.locator('.context-view .monaco-menu').last();
      const text = await sub.innerText();
      for (const want of ['Rewrite', 'Expand', 'Shrink', 'Describe', 'Send Selection to Chat']) {
        if (!text.includes(want)) throw new Error(`the Worldline submenu lacks "${want}": ${text.replace(/\s+/g, ' ')}`);
      }
      log(`  writing tools: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
      await settledLayout(page);
      const shot = path.join(path.dirname(screenshotPath), 'writing-tools.png');
      await page.screenshot({ path: shot });
      log(`  writing tools screenshot: ${path.relative(REPO_ROOT, shot)}`);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
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
