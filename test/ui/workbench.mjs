// What the UI tests (test/ui/screenshot.mjs, test/ui/chatChecks.mjs) do in code-server's
// workbench: wait by polling, find a view's webview document, run a palette command, read the
// open QuickPick, type into the Chat.
import fs from 'node:fs';

export const STEP_TIMEOUT_MS = 60_000;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]);
}

/** Calls `fn` until it returns something truthy (and returns that), or throws after `timeoutMs`. */
export async function poll(fn, { timeoutMs = STEP_TIMEOUT_MS, intervalMs = 250, what }) {
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
    await sleep(intervalMs);
  }
}

/**
 * For a check that something does NOT happen: samples `fn` for `forMs` and returns the first
 * sample `bad` holds for (or null). There is no event to wait for, so a window it is.
 */
export async function watchFor(fn, bad, { forMs = 1500, intervalMs = 150 } = {}) {
  const until = Date.now() + forMs;
  for (;;) {
    const value = await fn();
    if (bad(value)) return value;
    if (Date.now() > until) return null;
    await sleep(intervalMs);
  }
}

export function headerSelector(title) {
  return `.pane-header[aria-label="${title} Section"]`;
}

/** A view's header in the side bar, found by its aria-label ("<title> Section"). */
export function paneHeader(page, title) {
  return page.locator(`.part.sidebar ${headerSelector(title)}`);
}

export function pane(page, title) {
  return page.locator('.part.sidebar .pane', { has: page.locator(headerSelector(title)) });
}

/**
 * The inner document frames of the webview over a view's pane, with what they show. VS Code
 * draws webviews in iframes layered over the workbench; each of our pages has its view's title as
 * its document title, so a frame left over another pane while the layout moves is not taken.
 */
async function viewDocuments(page, title) {
  const paneBox = await pane(page, title).locator('.pane-body').boundingBox({ timeout: 2000 });
  if (!paneBox || paneBox.height < 20) return [];
  const found = [];
  for (const el of await page.$$('iframe.webview')) {
    const box = await el.boundingBox();
    if (!box || box.width < 20 || box.height < 20) continue;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    if (cx < paneBox.x || cx > paneBox.x + paneBox.width || cy < paneBox.y || cy > paneBox.y + paneBox.height) continue;
    const outer = await el.contentFrame();
    for (const inner of outer?.childFrames() ?? []) {
      const info = await inner
        .evaluate(() => ({
          title: document.title,
          text: (document.body?.innerText ?? '').trim(),
          elements: document.body ? document.body.querySelectorAll('*').length : 0,
          controls: document.querySelectorAll('textarea, input, button, select').length,
          ready: document.readyState,
        }))
        .catch(() => null);
      if (info && info.title === title && info.ready === 'complete' && info.elements > 0) found.push({ frame: inner, info });
    }
  }
  return found;
}

/** What the view's webview shows ({title, text, elements, controls}), or null while it shows nothing. */
export async function webviewContent(page, title) {
  const docs = await viewDocuments(page, title);
  return docs.find((d) => d.info.text || d.info.controls)?.info ?? null;
}

/** The inner document frame of the webview over a view's pane, or null. */
export async function webviewFrame(page, title) {
  const docs = await viewDocuments(page, title);
  return docs[0]?.frame ?? null;
}

export async function chatFrame(page) {
  return poll(async () => {
    const f = await webviewFrame(page, 'Chat');
    return f && (await f.locator('#log').count()) ? f : null;
  }, { what: 'the Chat webview frame' });
}

/** The quick input (palette, QuickPick) widget and its text box. */
export function quickInput(page) {
  return page.locator('.quick-input-widget');
}

/** Opens the palette with `query` typed (">" for commands). */
export async function openPalette(page, query) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(query);
  return input;
}

/**
 * Runs a palette command by its title; `answers` are typed into the input boxes it opens. A
 * command refused because the agent is still finishing (its toast says so) opens no prompt: it is
 * run once more after a moment.
 */
export async function runCommand(page, title, answers = [], attempt = 1) {
  const input = await openPalette(page, `>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  for (const [i, answer] of answers.entries()) {
    // The next prompt (an input box or a pick) opens empty; the palette's text is gone.
    const prompt = poll(async () => (await input.isVisible()) && (await input.inputValue()) === '', { what: 'the command\'s prompt', timeoutMs: 10_000, intervalMs: 100 });
    if (i === 0 && attempt < 3) {
      if (!(await prompt.then(() => true, () => false))) {
        await page.keyboard.press('Escape').catch(() => {});
        return runCommand(page, title, answers, attempt + 1);
      }
    } else await prompt;
    await input.fill(answer);
    // An input box lists nothing; a pick filters to the answer first.
    await poll(async () => {
      const n = await rows.count();
      return n === 0 || (await rows.first().innerText()).includes(answer);
    }, { what: `"${answer}" to be chosen`, timeoutMs: 10_000, intervalMs: 100 });
    await page.keyboard.press('Enter');
  }
}

/** The rows the open QuickPick shows: label, description, detail, as the novelist reads them. */
export async function quickPickRows(page) {
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row').evaluateAll((rows) =>
    rows
      .map((r) => ({
        index: Number(r.getAttribute('data-index')),
        label: (r.querySelector('.quick-input-list-row .label-name')?.textContent ?? '').trim(),
        description: (r.querySelector('.quick-input-list-row .label-description')?.textContent ?? '').trim(),
        detail: (r.querySelector('.quick-input-list-label-meta .label-name, .quick-input-list-detail')?.textContent ?? '').trim(),
        aria: r.getAttribute('aria-label') ?? '',
      }))
      .sort((a, b) => a.index - b.index),
  );
}

/** The files of a folder (recursively, relative names) with their text: what "unchanged" compares. */
export function folderText(dir, under = '') {
  const out = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = under ? `${under}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, folderText(`${dir}/${e.name}`, rel));
    else out[rel] = fs.readFileSync(`${dir}/${e.name}`, 'utf8');
  }
  return out;
}

export function sameText(a, b) {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}
