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
    return { ok: false, error: String(err) };
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
    return { ok: false, error: String(err) };
  }
}
