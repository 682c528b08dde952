// Issue 14's checks in the real VS Code, run by test/ui/screenshot.mjs after its own steps (the
// Chat then holds a few turns, the tree three saves on two worldlines):
//
//   - the palette offers in a novel what applies there, and outside one only what needs no novel;
//   - a turn picker names its turns ("Turn N · first words", in-story time, files, when), newest
//     first, and Escape restores nothing;
//   - a click on a save in the Worldlines tree selects it and loads nothing; its inline Load does;
//   - the Chat keeps the reader's place after Hide, Unhide, Edit in place and the scribe's end,
//     and follows a new reply when the reader is at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/vscode/install.mjs';
import {
  chatFrame, folderText, openPalette, pane, poll, quickInput, quickPickRows, runCommand, sameText, watchFor,
} from './workbench.mjs';

/** How far the message being read may move on screen, in px. */
const PLACE_TOLERANCE_PX = 3;
/** Within this of the end the Chat counts as "at the bottom" (media/chat.js uses 24). */
const AT_BOTTOM_PX = 24;
/** The scribe answers this late in the scroll check, so the view can be scrolled while it runs. */
const SCRIBE_DELAY_MS = 4000;

/** The palette titles of the extension's commands ("Worldline: Save Point…"), by command id. */
function commandTitles() {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const nls = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.nls.json'), 'utf8'));
  const text = (s) => (typeof s === 'string' && /^%.+%$/.test(s) ? nls[s.slice(1, -1)] : s);
  return new Map(manifest.contributes.commands.map((c) => [c.command, `${text(c.category)}: ${text(c.title)}`]));
}

/** The commands that need no novel: all the palette may offer in a folder without worldline.yaml. */
const OUTSIDE_A_NOVEL = ['initializeNovel', 'chooseProvider', 'setApiKey', 'selectModel', 'testConnection', 'showLog'];

/** Types `query` into the open palette and returns the labels of the rows it lists, once they settle. */
async function paletteLabels(page, query) {
  const input = quickInput(page).locator('input');
  await input.fill(query);
  let last = null;
  // Filtering is quick but not synchronous: the same rows twice in a row are the answer.
  return poll(async () => {
    const now = (await quickPickRows(page)).map((r) => r.label).join('\n');
    const settled = last === now;
    last = now;
    return settled ? { labels: now ? now.split('\n') : [] } : null;
  }, { what: `the palette's rows for "${query}"`, timeoutMs: 10_000, intervalMs: 300 }).then((r) => r.labels);
}

// ---- The Chat: where the reader is ----

/** The log's scroll and where message `id` sits on screen (px below the log's top edge). */
function placeOf(frame, id) {
  return frame.evaluate((id) => {
    const log = document.getElementById('log');
    const m = log.querySelector(`.msg[data-id="${id}"]`);
    return {
      scrollTop: Math.round(log.scrollTop),
      top: m ? Math.round(m.getBoundingClientRect().top - log.getBoundingClientRect().top) : null,
      fromBottom: Math.round(log.scrollHeight - log.scrollTop - log.clientHeight),
    };
  }, id);
}

function logSize(frame) {
  return frame.evaluate(() => {
    const log = document.getElementById('log');
    return { scrollHeight: log.scrollHeight, clientHeight: log.clientHeight, fromBottom: Math.round(log.scrollHeight - log.scrollTop - log.clientHeight) };
  });
}

/**
 * Scrolls so that a message of `role` from the middle of the log starts 8 px below the log's top,
 * its toolbar in view (so a click scrolls nothing itself); returns its id.
 */
async function scrollToMiddle(frame, role) {
  const id = await frame.evaluate((role) => {
    const log = document.getElementById('log');
    const all = Array.from(log.querySelectorAll('.msg[data-id]'));
    // Room below the view: a hidden message is shorter, and a log that shrinks past its end has
    // to clamp its scroll (that is the browser, not the page moving the reader). Most room first.
    const fits = (m, room) => m.offsetHeight + 16 < log.clientHeight && m.offsetTop > 16 && m.offsetTop + log.clientHeight < log.scrollHeight - room;
    const ofRole = all.slice(0, -1).filter((m) => m.getAttribute('data-role') === role);
    const roomy = ofRole.filter((m) => fits(m, 240));
    const candidates = roomy.length > 0 ? roomy : ofRole.filter((m) => fits(m, 40));
    const m = candidates[Math.floor(candidates.length / 2)];
    if (!m) return null;
    log.scrollTop = m.offsetTop - 8;
    return m.getAttribute('data-id');
  }, role);
  if (!id) throw new Error(`no ${role} message in the middle of the log fits in view (log ${JSON.stringify(await logSize(frame))})`);
  await poll(async () => (await placeOf(frame, id)).top === 8, { what: 'the log to scroll to the message', timeoutMs: 5000, intervalMs: 100 });
  return id;
}

/** Fails when, over a short window, the message moved more than the tolerance from `before`. */
async function assertStays(frame, id, before, what) {
  const moved = await watchFor(() => placeOf(frame, id), (p) => p.top === null || Math.abs(p.top - before.top) > PLACE_TOLERANCE_PX, { forMs: 1500 });
  if (moved) {
    throw new Error(`after ${what} the message read moved: top ${before.top} -> ${moved.top} px, scrollTop ${before.scrollTop} -> ${moved.scrollTop}, ${moved.fromBottom} px from the end`);
  }
  return placeOf(frame, id);
}

const phaseText = (frame) => frame.locator('#composer .phase').innerText().then((t) => t.trim());

/** The turn is over: no streaming block, the phase line empty (idle), the composer free. */
async function idle(frame) {
  return (await frame.locator('#log [data-testid="streaming"]').count()) === 0
    && (await phaseText(frame)) === ''
    && !(await frame.locator('#composer textarea').isDisabled());
}

/** Sends an instruction and waits for its reply to be recorded (not for the scribe). */
async function sendAndWaitForReply(frame, text) {
  const input = frame.locator('#composer textarea');
  await poll(() => idle(frame), { what: 'the Chat to be idle', timeoutMs: 60_000 });
  const replies = await frame.locator('#log .msg.assistant[data-id]').count();
  await input.fill(text);
  await input.press('Enter');
  await poll(async () => (await frame.locator('#log .msg.assistant[data-id]').count()) > replies
    && (await frame.locator('#log [data-testid="streaming"]').count()) === 0, { what: `the reply to "${text}"`, timeoutMs: 60_000 });
}

async function clickMenuItem(frame, id, action) {
  const msg = frame.locator(`#log .msg[data-id="${id}"]`);
  await msg.locator('.actions [data-action="more"]').click();
  const item = msg.locator(`[role="menu"] [role="menuitem"][data-action="${action}"]`);
  await item.waitFor({ timeout: 5000 });
  await item.click();
}

/**
 * @param {{ test: Function, ctx: { page: any, browser: any, demo: any, model: { scribeCalls: number, scribeDelayMs: number } }, log: (s: string) => void, figures: Record<string, unknown> }} run
 */
export async function chatChecks({ test, ctx, log, figures }) {
  const titles = commandTitles();
  const title = (id) => titles.get(`worldline.${id}`);
  const chapters = () => folderText(path.join(ctx.demo.workspace, 'chapters'));

  await test('in the novel the palette offers Save Point… and hides Initialize Novel', async () => {
    const page = ctx.page;
    await openPalette(page, '>');
    try {
      const saves = await paletteLabels(page, `>${title('savePoint')}`);
      if (!saves.includes(title('savePoint'))) throw new Error(`"${title('savePoint')}" is not offered: ${saves.join(' | ')}`);
      const init = await paletteLabels(page, `>${title('initializeNovel')}`);
      if (init.includes(title('initializeNovel'))) throw new Error(`"${title('initializeNovel')}" is offered in a novel`);
    } finally {
      await page.keyboard.press('Escape');
    }
  }, { critical: false });

  await test('the turn pickers name each turn, newest first, and Escape restores nothing', async () => {
    const page = ctx.page;
    const chat = await chatFrame(page);
    await poll(() => idle(chat), { what: 'the Chat to be idle', timeoutMs: 60_000 });
    const instructions = await chat.locator('#log .msg.user[data-id] .body').allInnerTexts();
    if (instructions.length < 2) throw new Error(`the branch has ${instructions.length} turn(s); the check wants 2 or more`);
    const prose = chapters();
    const transcript = await chat.locator('#log').innerText();

    await runCommand(page, title('restoreProseOnly'));
    await poll(async () => /which turn/i.test(await quickInput(page).locator('.quick-input-title').innerText()), { what: 'the turn picker', timeoutMs: 15_000 });
    const rows = await poll(async () => {
      const r = await quickPickRows(page);
      return r.length >= instructions.length ? r : null;
    }, { what: `a row for each of the ${instructions.length} turns`, timeoutMs: 10_000 });
    log(`  picker: ${rows.map((r) => `${r.label} | ${r.description} | ${r.detail}`).join(' / ')}`);
    const turns = rows.filter((r) => /^Turn \d+/.test(r.label));
    const numbers = turns.map((r) => Number(/^Turn (\d+)/.exec(r.label)[1]));
    const expected = instructions.map((_, i) => instructions.length - i);
    if (numbers.join() !== expected.join()) throw new Error(`turn numbers ${numbers.join(', ')}; expected newest first ${expected.join(', ')}`);
    turns.forEach((r, i) => {
      const m = /^Turn \d+ · (.+)$/.exec(r.label);
      const said = instructions[instructions.length - 1 - i].replace(/\s+/g, ' ').trim();
      const words = m ? m[1].replace(/…$/, '') : '';
      if (!words || !said.startsWith(words)) throw new Error(`"${r.label}" does not name the instruction "${said}"`);
      if (!/(\d+ files? changed|no file changed)$/.test(r.description)) throw new Error(`"${r.label}": the description "${r.description}" does not say the files changed`);
      if (!/^(just now|\d+ minutes? ago)$/.test(r.detail)) throw new Error(`"${r.label}": the detail "${r.detail}" is not a relative time`);
    });
    // The demo's scribe dated the first turn's scene.
    const first = turns[turns.length - 1];
    if (!/第一天/.test(first.description)) throw new Error(`turn 1 has no in-story time: "${first.description}"`);
    // Below the turns at most the opening (the prose before the first instruction).
    const rest = rows.slice(turns.length);
    if (rows.slice(0, turns.length).some((r) => !turns.includes(r)) || rest.length > 1 || rest.some((r) => !/^The opening/.test(r.label))) {
      throw new Error(`unexpected rows: ${rows.map((r) => r.label).join(' | ')}`);
    }
    await page.keyboard.press('Escape');
    await quickInput(page).waitFor({ state: 'hidden', timeout: 5000 });
    const moved = await watchFor(chapters, (t) => !sameText(t, prose), { forMs: 2500 });
    if (moved) throw new Error('Escape in the turn picker changed the chapters');
    if ((await chat.locator('#log').innerText()) !== transcript) throw new Error('Escape in the turn picker changed the Chat');

    // The other turn verbs ask the same way.
    for (const [id, ask] of [['showTurnChanges', /changes of which turn/i], ['compareWithCheckpoint', /compare .* which turn/i]]) {
      await runCommand(page, title(id));
      await poll(async () => ask.test(await quickInput(page).locator('.quick-input-title').innerText()), { what: `the picker of "${title(id)}"`, timeoutMs: 15_000 });
      const n = (await quickPickRows(page)).filter((r) => /^Turn \d+ · /.test(r.label)).length;
      await page.keyboard.press('Escape');
      if (n !== instructions.length) throw new Error(`"${title(id)}" lists ${n} turns, not ${instructions.length}`);
    }
  }, { critical: false });

  await test('a click on a save in the Worldlines tree selects it and loads nothing; its Load button loads it', async () => {
    const page = ctx.page;
    const header = page.locator(`.part.sidebar .pane-header[aria-label="Worldlines Section"]`);
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    const tree = pane(page, 'Worldlines');
    // The first save, where the line forked: loading it takes the later chapter away.
    const row = tree.locator('.monaco-list-row[aria-label^="Save \\"雨夜问名\\""]');
    await row.waitFor({ timeout: 15_000 });
    if (/you are here/.test((await row.getAttribute('aria-label')) ?? '')) throw new Error('the save to click is already where the story is');
    const labels = await tree.locator('.monaco-list-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label')));
    if (new Set(labels).size !== labels.length) throw new Error(`two rows share a screen-reader label: ${labels.join(' | ')}`);
    const chat = await chatFrame(page);
    await poll(() => idle(chat), { what: 'the Chat to be idle', timeoutMs: 60_000 });
    const prose = chapters();
    const transcript = await chat.locator('#log').innerText();

    await row.click();
    await poll(async () => (await row.getAttribute('aria-selected')) === 'true', { what: 'the clicked save to be selected', timeoutMs: 5000 });
    const moved = await watchFor(chapters, (t) => !sameText(t, prose), { forMs: 2500 });
    if (moved) throw new Error('a click on the save changed the chapters: it loaded');
    if ((await chat.locator('#log').innerText()) !== transcript) throw new Error('a click on the save changed the Chat');

    await row.hover();
    const load = row.locator(`a.action-label[aria-label="${title('loadSave').replace(/^Worldline: /, '')}"]`);
    await load.waitFor({ state: 'visible', timeout: 5000 });
    await load.click();
    const saved = ctx.proseAt?.['雨夜问名'];
    if (!saved) throw new Error('the chapters at the save "雨夜问名" were not recorded');
    if (sameText(saved, prose)) throw new Error('the chapters are the same at both saves: loading would show nothing');
    await poll(() => sameText(chapters(), saved), { what: 'the chapters to be as they were at the loaded save', timeoutMs: 30_000 });
    // The Chat is back at the save: its two turns, the last the XSS one.
    await poll(async () => {
      const said = await chat.locator('#log .msg.user[data-id] .body').allInnerTexts();
      return said.length === 2 && said[1].includes('XSS');
    }, { what: 'the Chat to show the loaded save\'s two turns', timeoutMs: 30_000 });
    await poll(async () => /you are here/.test((await row.getAttribute('aria-label')) ?? ''), { what: 'the loaded save to be marked "you are here"', timeoutMs: 15_000 });
  }, { critical: false });

  await test('the Chat keeps its place after Hide, Unhide, Edit and the scribe, and follows a reply at the end', async () => {
    const page = ctx.page;
    // The Chat gets the side bar: the other views fold away.
    for (const view of ['Chat', 'Scene State', 'Codex', 'Worldlines', 'Worldline Graph']) {
      const header = page.locator(`.part.sidebar .pane-header[aria-label="${view} Section"]`);
      if (((await header.getAttribute('aria-expanded')) === 'true') !== (view === 'Chat')) await header.click();
    }
    const chat = await chatFrame(page);
    // The side bar lays the Chat out anew: wait until it has the room.
    await poll(async () => (await logSize(chat)).clientHeight >= 250, { what: 'the Chat to get the side bar', timeoutMs: 10_000, intervalMs: 200 }).catch(() => {});
    const more = ['沈砚第二天一早去渡口。', '沈砚在旧宅墙根下找到一块青石。', '青梧独自去了渡口。', '沈砚回到客栈。', '雨又下了起来。', '掌柜的来敲门。', '沈砚收起了玉佩。'];
    // Long enough that a message in the middle has screens of text above and below it.
    for (let i = 0; ; i++) {
      const size = await logSize(chat);
      if (size.scrollHeight >= size.clientHeight * 3) break;
      if (i >= more.length) throw new Error(`the log did not grow long enough to scroll: ${JSON.stringify(size)}`);
      await sendAndWaitForReply(chat, more[i]);
    }
    await poll(() => idle(chat), { what: 'the Chat to be idle', timeoutMs: 60_000 });
    const size = await logSize(chat);
    log(`  log ${size.clientHeight} px tall, ${size.scrollHeight} px of messages`);
    const seen = {};

    // Hide and Unhide sit in "More actions".
    let id = await scrollToMiddle(chat, 'assistant');
    let before = await placeOf(chat, id);
    await clickMenuItem(chat, id, 'hide');
    await poll(() => chat.locator(`#log .msg[data-id="${id}"] [data-testid="hidden-mark"]`).count(), { what: 'the reply to show as hidden', timeoutMs: 10_000 });
    seen.hide = { before, after: await assertStays(chat, id, before, 'Hide') };
    before = await placeOf(chat, id);
    await clickMenuItem(chat, id, 'hide');
    await poll(async () => (await chat.locator(`#log .msg[data-id="${id}"] [data-testid="hidden-mark"]`).count()) === 0, { what: 'the reply to show as not hidden', timeoutMs: 10_000 });
    seen.unhide = { before, after: await assertStays(chat, id, before, 'Unhide') };

    // Edit is an instruction's main action; Save keeps the edit in place.
    id = await scrollToMiddle(chat, 'user');
    before = await placeOf(chat, id);
    const msg = chat.locator(`#log .msg[data-id="${id}"]`);
    const oldText = (await msg.locator('.body').innerText()).trim();
    await msg.locator('.actions [data-action="edit"]').click();
    const box = msg.locator('.edit-box textarea');
    await box.waitFor({ timeout: 5000 });
    const newText = `${oldText}（改）`;
    await box.fill(newText);
    await msg.locator('.edit-box').getByRole('button', { name: 'Save', exact: true }).click();
    await poll(async () => (await msg.locator('.body').innerText()).trim() === newText && (await msg.locator('.who .badge').count()) > 0, { what: 'the edited instruction with its "edited" badge', timeoutMs: 10_000 });
    seen.edit = { before, after: await assertStays(chat, id, before, 'Edit (in place)') };

    // At the end, a new reply and the scribe's patch keep the view at the end.
    ctx.model.scribeDelayMs = SCRIBE_DELAY_MS;
    try {
      await chat.evaluate(() => { const l = document.getElementById('log'); l.scrollTop = l.scrollHeight; });
      let calls = ctx.model.scribeCalls;
      await sendAndWaitForReply(chat, '青梧把油灯放在窗台上。');
      let end = await logSize(chat);
      if (end.fromBottom > AT_BOTTOM_PX) throw new Error(`at the end, a new reply left the view ${end.fromBottom} px above the end`);
      await poll(() => ctx.model.scribeCalls > calls, { what: 'the scribe to start', timeoutMs: 30_000 });
      await poll(() => idle(chat), { what: 'the scribe to finish', timeoutMs: 30_000 });
      end = await logSize(chat);
      if (end.fromBottom > AT_BOTTOM_PX) throw new Error(`at the end, the scribe's end left the view ${end.fromBottom} px above the end`);
      seen.atEnd = { fromBottom: end.fromBottom };

      // Scrolled up while the scribe runs: its end moves nothing.
      calls = ctx.model.scribeCalls;
      await sendAndWaitForReply(chat, '沈砚吹灭了油灯。');
      await poll(() => ctx.model.scribeCalls > calls, { what: 'the scribe to start', timeoutMs: 30_000 });
      id = await scrollToMiddle(chat, 'assistant');
      before = await placeOf(chat, id);
      if (await idle(chat)) throw new Error(`the scribe ended before the view was scrolled (its delay, ${SCRIBE_DELAY_MS} ms, is too short here)`);
      await poll(() => idle(chat), { what: 'the scribe to finish', timeoutMs: 30_000 });
      seen.scribe = { before, after: await assertStays(chat, id, before, 'the scribe\'s end') };
    } finally {
      ctx.model.scribeDelayMs = 0;
    }
    figures.scroll = seen;
    const f = (s) => `scrollTop ${s.before.scrollTop} -> ${s.after.scrollTop}, message top ${s.before.top} -> ${s.after.top} px`;
    log(`  Hide: ${f(seen.hide)}; Unhide: ${f(seen.unhide)}; Edit: ${f(seen.edit)}; scribe: ${f(seen.scribe)}; at the end: ${seen.atEnd.fromBottom} px from the end`);
  }, { critical: false });

  await test('outside a novel the palette offers only the commands that need no novel', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'worldline-not-a-novel-'));
    const page = await ctx.browser.newPage({ viewport: ctx.page.viewportSize() });
    try {
      const url = new URL(ctx.demo.url);
      url.search = `?folder=${encodeURIComponent(empty).replace(/%2F/g, '/')}`;
      await page.goto(url.toString(), { waitUntil: 'domcontentloaded', timeout: 60_000 });
      await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
      await page.locator('.part.sidebar .pane-header', { hasText: path.basename(empty) }).first().waitFor({ timeout: 60_000 });
      const allowed = OUTSIDE_A_NOVEL.map(title);
      const ours = new Set(titles.values());
      let shown = [];
      let listed = [];
      // The extension's commands reach the palette once the window has read its manifest; the
      // palette takes the commands when it opens, so each try opens it anew.
      await poll(async () => {
        await page.keyboard.press('Escape');
        await openPalette(page, '>');
        listed = await paletteLabels(page, '>Worldline');
        shown = listed.filter((l) => ours.has(l));
        return shown.includes(title('initializeNovel'));
      }, { what: `"${title('initializeNovel')}" in the palette of a folder without worldline.yaml`, timeoutMs: 30_000 }).catch((err) => {
        throw new Error(`${err.message}; the palette lists: ${listed.join(' | ') || 'nothing'}`);
      });
      const extra = shown.filter((l) => !allowed.includes(l));
      const missing = allowed.filter((l) => !shown.includes(l));
      // Each hidden one asked for by name, too (the list is virtual: a long one is not all drawn).
      for (const id of ['restoreProseOnly', 'savePoint', 'regenerate', 'loadSave', 'newSession']) {
        if ((await paletteLabels(page, `>${title(id)}`)).includes(title(id))) extra.push(title(id));
      }
      await page.keyboard.press('Escape');
      if (extra.length || missing.length) {
        throw new Error(`outside a novel the palette ${extra.length ? `offers ${[...new Set(extra)].join(', ')}` : ''}${extra.length && missing.length ? ' and ' : ''}${missing.length ? `lacks ${missing.join(', ')}` : ''}`);
      }
      log(`  outside a novel: ${shown.join(', ')}`);
    } catch (err) {
      await page.screenshot({ path: path.join(REPO_ROOT, 'test-results', 'ui-not-a-novel.png') }).catch(() => {});
      throw err;
    } finally {
      await page.close().catch(() => {});
      fs.rmSync(empty, { recursive: true, force: true });
    }
  }, { critical: false });
}
