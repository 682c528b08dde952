// "Edit as YAML" in the Scene State view: the novelist's text is parsed here; a syntax error comes
// back with its line number and nothing is applied.
import { parseDocument } from 'yaml';
import type { Lang } from './types';

export type ParsedYaml = { ok: true; value: unknown } | { ok: false; error: string };

export function parseStateYaml(text: string, lang: Lang = 'en'): ParsedYaml {
  let doc;
  try {
    doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    return { ok: false, error: unreadable(err, lang) };
  }
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    const what = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return {
      ok: false,
      error: lang === 'zh' ? `YAML 有误${line ? `（第 ${line} 行）` : ''}：${what}。未做任何修改。` : `Invalid YAML${line ? ` at line ${line}` : ''}: ${what}. Nothing was changed.`,
    };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 50 }) as unknown };
  } catch (err) {
    return { ok: false, error: unreadable(err, lang) };
  }
}

function unreadable(err: unknown, lang: Lang): string {
  const alias = /alias/i.test(String(err));
  if (lang === 'zh') return alias ? 'YAML 里的别名（*名字）太多，无法安全读取；请把值完整写出来。未做任何修改。' : `YAML 读不了（${messageOf(err)}）。未做任何修改。`;
  return alias
    ? 'The YAML uses too many aliases (*name) to read safely; write the values out in full. Nothing was changed.'
    : `The YAML could not be read (${messageOf(err)}). Nothing was changed.`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
