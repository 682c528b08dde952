// "When" for a choice: how long ago, in words ("5 minutes ago", "3 days ago"), and past a week (or
// in the future, a clock that moved) the date itself, which says more than "41 days ago". Words are
// English keys for the shell to translate; the date is written year-month-day in local time, read
// the same in both languages.
import { ofCount, type Text } from './text';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A clock a little ahead of the one that wrote the time still reads "just now". */
const SKEW = MINUTE;

/** `then` (an ISO time or epoch ms) as seen at `now` (epoch ms). */
export function relativeTime(then: string | number, now: number): Text {
  const at = typeof then === 'number' ? then : Date.parse(then);
  if (!Number.isFinite(at)) return { message: String(then), args: [], literal: true };
  const ago = now - at;
  if (ago < -SKEW || ago >= 7 * DAY) return { message: localDate(at), args: [], literal: true };
  if (ago < MINUTE) return l10n.t('just now');
  if (ago < HOUR) {
    const n = Math.floor(ago / MINUTE);
    return ofCount(n, l10n.t('{0} minute ago', n), l10n.t('{0} minutes ago', n));
  }
  if (ago < DAY) {
    const n = Math.floor(ago / HOUR);
    return ofCount(n, l10n.t('{0} hour ago', n), l10n.t('{0} hours ago', n));
  }
  const n = Math.floor(ago / DAY);
  return ofCount(n, l10n.t('{0} day ago', n), l10n.t('{0} days ago', n));
}

/** YYYY-MM-DD in local time. */
function localDate(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}
