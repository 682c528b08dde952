// Measures the Chat in the real VS Code (code-server's workbench + the packaged .vsix + a copy of
// the sample novel, the demo model): the figures issue 14's closing note compares before and after.
//
//   (a) the Chat log's height (#log clientHeight) in the default layout at 1280x800, with every
//       side-bar pane's height;
//   (b) the log's scrollTop when scrolled to the top with a long chat: before and after Hide of an
//       early reply, before and after Unhide, and before and after the scribe finishes a turn.
//
//   node test/ui/measure.mjs [--turns 4] [--message 0] [--json out.json]
//
// --message: which message Hide, Unhide and Edit act on (0: the first instruction). Its toolbar
// must be on screen with the log at the top, as it is for a reader who clicks it: the page of
// issue 14 keeps Hide and a reply's Edit in a "More actions" menu that takes focus, so an
// off-screen toolbar (message 1, the first reply, where the "before" figures were taken on the
// page that had every button in the toolbar) is scrolled into view by the browser itself.
//
// Prints the figures; exit code 1 only when the measurement itself could not be made.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemo } from '../../scripts/demo.mjs';
import { launchBrowser, onShutdownSignal } from '../../scripts/vscode/server.mjs';
import { headerSelector, poll, sleep, webviewFrame } from './workbench.mjs';

const VIEWPORT = { width: 1280, height: 800 };
const INSTRUCTIONS = ['写沈砚住店，并打听沈家。', '青梧夜里来柴房。', '沈砚第二天一早去渡口。', '沈砚在旧宅墙根下找到一块青石。', '青梧独自去了渡口。'];
/** The scribe answers this late, so "while the scribe runs" is a window the script can scroll in. */
const SCRIBE_DELAY_MS = 4000;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The side bar's panes: title, expanded, height of the body. */
async function paneHeights(page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.part.sidebar .pane')).map((pane) => {
      const header = pane.querySelector('.pane-header');
      const body = pane.querySelector('.pane-body');
      return {
        title: (header?.getAttribute('aria-label') ?? '').replace(/ Section$/, ''),
        expanded: header?.getAttribute('aria-expanded') === 'true',
        height: body ? Math.round(body.getBoundingClientRect().height) : 0,
      };
    }),
  );
}

/** The Chat's frame, reloading the workbench when a webview stays blank (the code-server race, see test/ui/reloads.mjs). */
async function chatFrame(page, log) {
  for (let attempt = 1; ; attempt++) {
    const frame = await poll(() => webviewFrame(page, 'Chat'), { what: 'the Chat webview', timeoutMs: 20_000 }).catch(() => null);
    if (frame && (await frame.locator('#log').count())) return frame;
    if (attempt >= 4) throw new Error('the Chat webview stayed blank after 4 loads');
    log(`  the Chat stayed blank (code-server's service-worker race): reloading (${attempt}/3)`);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator(`.part.sidebar ${headerSelector('Chat')}`).waitFor({ timeout: 60_000 });
  }
}

const scrollState = (frame) =>
  frame.evaluate(() => {
    const log = document.getElementById('log');
    return { scrollTop: Math.round(log.scrollTop), scrollHeight: log.scrollHeight, clientHeight: log.clientHeight };
  });

async function sendInstruction(frame, text, scribe) {
  const input = frame.locator('textarea[aria-label]').first();
  await poll(async () => !(await input.isDisabled()), { what: 'the chat input to be free' });
  const scribesBefore = scribe.calls;
  const repliesBefore = await frame.locator('#log .msg.assistant, #log [data-role="assistant"]').count();
  await input.fill(text);
  await input.press('Enter');
  await poll(async () => (await frame.locator('#log .msg.assistant, #log [data-role="assistant"]').count()) > repliesBefore && !(await input.isDisabled()), {
    what: `the reply to "${text}"`,
  });
  return scribesBefore;
}

/** Clicks a message's Hide/Unhide action without Playwright scrolling it into view first. */
async function clickHide(frame, index, label) {
  const how = await frame.evaluate(({ index, label }) => {
    const msgs = Array.from(document.querySelectorAll('#log .msg[data-id]'));
    const m = msgs[index];
    if (!m) return 'no such message';
    const re = new RegExp(`^${label}`, 'i');
    const direct = m.querySelector('[data-action="hide"]') ?? Array.from(m.querySelectorAll('button, [role="menuitem"]')).find((b) => re.test(b.getAttribute('aria-label') ?? b.textContent ?? ''));
    if (direct) {
      direct.click();
      return 'clicked';
    }
    // Newer pages keep the rarer actions in an overflow menu.
    const more = Array.from(m.querySelectorAll('button')).find((b) => /more|overflow|…/i.test((b.getAttribute('aria-label') ?? '') + (b.getAttribute('data-action') ?? '')));
    if (!more) return 'no hide action';
    more.click();
    const item = Array.from(document.querySelectorAll('[role="menuitem"], [data-action="hide"]')).find((b) => re.test(b.getAttribute('aria-label') ?? b.textContent ?? ''));
    if (!item) return 'no hide item in the overflow menu';
    item.click();
    return 'clicked (overflow)';
  }, { index, label });
  if (!/^clicked/.test(how)) throw new Error(`Hide of message ${index}: ${how}`);
}

/** Is message `index` shown as hidden (class or badge)? */
const isHidden = (frame, index) =>
  frame.evaluate((index) => {
    const m = document.querySelectorAll('#log .msg[data-id]')[index];
    return !!m && (m.classList.contains('hidden') || m.getAttribute('data-hidden') === 'true');
  }, index);

/** Edits message `index` in place (appends a word), without Playwright scrolling anything into view. */
async function editInPlace(frame, index) {
  const opened = await frame.evaluate((index) => {
    const m = document.querySelectorAll('#log .msg[data-id]')[index];
    const find = () => m && (m.querySelector('[data-action="edit"]') ?? Array.from(m.querySelectorAll('button, [role="menuitem"]')).find((b) => /^edit/i.test(b.getAttribute('aria-label') ?? b.textContent ?? '')));
    let edit = find();
    // Newer pages keep Edit of a reply in the "More actions" menu (built when opened).
    const more = !edit && m && m.querySelector('[data-action="more"]');
    if (more) {
      more.click();
      edit = find();
    }
    if (!edit) return false;
    edit.click();
    return true;
  }, index);
  if (!opened) throw new Error(`no Edit action on message ${index}`);
  await sleep(300);
  const saved = await frame.evaluate((index) => {
    const m = document.querySelectorAll('#log .msg[data-id]')[index];
    const ta = m && m.querySelector('textarea');
    if (!ta) return 'no edit box';
    ta.value += '（改）';
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    const save = Array.from(m.querySelectorAll('button')).find((b) => /^save$/i.test((b.getAttribute('aria-label') ?? b.textContent ?? '').trim()));
    if (!save) return 'no Save button';
    save.click();
    return 'saved';
  }, index);
  if (saved !== 'saved') throw new Error(`edit of message ${index}: ${saved}`);
}

export async function measure({ turns = 4, message = 0, log = (s) => console.log(`[measure] ${s}`), jsonPath } = {}) {
  const ctx = { demo: null, browser: null };
  const cleanup = async () => {
    if (ctx.browser) await ctx.browser.close().catch(() => {});
    if (ctx.demo) await ctx.demo.stop();
  };
  const stopSignals = onShutdownSignal(cleanup);
  const scribe = { calls: 0 };
  const out = {};
  try {
    ctx.demo = await startDemo({
      port: 0,
      modelReply: (req, demoReply) => {
        const reply = demoReply(req);
        if (!req.stream && /你是场记|You are the scribe/.test(req.system ?? '')) {
          scribe.calls += 1;
          return { ...reply, delayMs: SCRIBE_DELAY_MS };
        }
        return reply;
      },
    });
    ctx.browser = await launchBrowser();
    const page = await (await ctx.browser.newContext({ viewport: VIEWPORT })).newPage();
    await page.goto(ctx.demo.url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
    await page.locator('.part.activitybar [aria-label*="Worldline"]').first().click({ timeout: 60_000 });
    let frame = await chatFrame(page, log);
    await page.waitForTimeout(1000);

    // (a) The default layout: nothing collapsed or expanded by the script.
    const panes = await paneHeights(page);
    const logBox = await scrollState(frame);
    out.layout = { viewport: VIEWPORT, logClientHeight: logBox.clientHeight, panes };
    log(`(a) #log clientHeight ${logBox.clientHeight} px at ${VIEWPORT.width}x${VIEWPORT.height}; panes: ${panes.map((p) => `${p.title} ${p.expanded ? p.height + ' px' : 'collapsed'}`).join(', ')}`);

    // (b) A chat long enough to scroll.
    for (let i = 0; i < turns; i++) {
      const before = await sendInstruction(frame, INSTRUCTIONS[i % INSTRUCTIONS.length], scribe);
      await poll(() => scribe.calls > before, { what: 'the scribe to start', timeoutMs: 30_000 });
      await sleep(SCRIBE_DELAY_MS + 1500);
    }
    frame = await chatFrame(page, log);
    const long = await scrollState(frame);
    log(`    ${turns} turns: log scrollHeight ${long.scrollHeight} px, clientHeight ${long.clientHeight} px`);
    if (long.scrollHeight <= long.clientHeight) throw new Error('the chat is not long enough to scroll');

    const atTop = async () => {
      await frame.evaluate(() => { document.getElementById('log').scrollTop = 0; });
      await sleep(400);
      return (await scrollState(frame)).scrollTop;
    };
    const which = message === 0 ? 'the first instruction' : message === 1 ? 'the first reply' : `message ${message}`;
    let before = await atTop();
    await clickHide(frame, message, 'Hide');
    await poll(() => isHidden(frame, message), { what: `${which} to show as hidden`, timeoutMs: 10_000 });
    await sleep(1500);
    let after = (await scrollState(frame)).scrollTop;
    out.hide = { message, before, after };
    log(`(b) Hide of ${which}, scrolled to the top: scrollTop ${before} -> ${after}`);

    before = await atTop();
    await clickHide(frame, message, 'Unhide');
    await poll(async () => !(await isHidden(frame, message)), { what: `${which} to show as not hidden`, timeoutMs: 10_000 });
    await sleep(1500);
    after = (await scrollState(frame)).scrollTop;
    out.unhide = { message, before, after };
    log(`    Unhide of it: scrollTop ${before} -> ${after}`);

    before = await atTop();
    try {
      await editInPlace(frame, message);
      await poll(() => frame.evaluate((i) => (document.querySelectorAll('#log .msg[data-id]')[i]?.textContent ?? '').includes('（改）'), message), { what: `the edited ${which}`, timeoutMs: 10_000 });
      await sleep(1500);
      after = (await scrollState(frame)).scrollTop;
      out.edit = { message, before, after };
      log(`    Edit (in place) of it: scrollTop ${before} -> ${after}`);
    } catch (err) {
      out.edit = { error: err.message };
      log(`    Edit: not measured (${err.message})`);
    }

    // The scribe: the reply is in, the scribe answers SCRIBE_DELAY_MS late; scroll up meanwhile.
    const calls = await sendInstruction(frame, INSTRUCTIONS[turns % INSTRUCTIONS.length], scribe);
    await poll(() => scribe.calls > calls, { what: 'the scribe to start', timeoutMs: 30_000 });
    before = await atTop();
    await sleep(SCRIBE_DELAY_MS + 2000);
    after = (await scrollState(frame)).scrollTop;
    out.scribe = { before, after };
    log(`    the scribe finishing while scrolled to the top: scrollTop ${before} -> ${after}`);
  } finally {
    await cleanup();
    stopSignals();
  }
  if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify(out, null, 2));
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await measure({ turns: Number(arg('turns', 4)), message: Number(arg('message', 0)), jsonPath: arg('json') });
    process.exit(0);
  } catch (err) {
    console.error(`[measure] FAILED: ${err.message}`);
    process.exit(1);
  }
}
