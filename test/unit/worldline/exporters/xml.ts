// A strict little XML reader for the exporters' tests: it refuses what is not well-formed (a
// bare & or <, an unknown entity, "]]>" in text, unquoted or repeated attributes, tags that do not
// nest, text or a second element outside the root) and gives back the element tree, so a test can
// read what a reader would. No DTD beyond `<!DOCTYPE html>`, no CDATA: the exporters write neither.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITY = /&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

function decode(raw: string, where: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '<') throw new Error(`a bare < in ${where}`);
    if (c !== '&') { out += c; continue; }
    ENTITY.lastIndex = i;
    const m = ENTITY.exec(raw);
    if (!m) throw new Error(`a bare & or unknown entity in ${where}: ${JSON.stringify(raw.slice(i, i + 12))}`);
    const e = m[0].slice(1, -1);
    out += e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'apos' ? "'"
      : String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    i += m[0].length - 1;
  }
  // XML 1.0 Char: no C0 controls but tab, LF, CR; no U+FFFE/FFFF; no lone surrogates.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(out) || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)) {
    throw new Error(`a character XML cannot hold in ${where}`);
  }
  return out;
}

/** The document's root element; throws with the reason when the text is not well-formed XML. */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const skipProlog = () => {
    for (;;) {
      const ws = /^\s*/.exec(text.slice(i))![0].length;
      i += ws;
      if (text.startsWith('<?xml', i) && i === ws && !root) { const end = text.indexOf('?>', i); if (end < 0) throw new Error('open <?xml'); i = end + 2; continue; }
      if (text.startsWith('<!DOCTYPE html>', i) && !root) { i += '<!DOCTYPE html>'.length; continue; }
      if (text.startsWith('<!--', i)) { const end = text.indexOf('-->', i + 4); if (end < 0) throw new Error('open comment'); i = end + 3; continue; }
      return;
    }
  };
  skipProlog();
  while (i < text.length) {
    if (stack.length === 0) {
      if (root) { skipProlog(); if (i < text.length) throw new Error(`content after the root element: ${JSON.stringify(text.slice(i, i + 20))}`); break; }
      if (text[i] !== '<') throw new Error('text before the root element');
    }
    const lt = text.indexOf('<', i);
    if (stack.length > 0 && lt !== i) {
      const raw = text.slice(i, lt < 0 ? text.length : lt);
      if (raw.includes(']]>')) throw new Error('"]]>" in text');
      stack.at(-1)!.children.push(decode(raw, `<${stack.at(-1)!.name}>`));
      if (lt < 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
      i = lt;
      continue;
    }
    if (text.startsWith('<!--', i)) { const end = text.indexOf('-->', i + 4); if (end < 0) throw new Error('open comment'); i = end + 3; continue; }
    if (text.startsWith('</', i)) {
      const m = /^<\/([A-Za-z_][\w.:-]*)\s*>/.exec(text.slice(i));
      if (!m) throw new Error('a broken end tag');
      const open = stack.pop();
      if (!open || open.name !== m[1]) throw new Error(`</${m[1]}> closes <${open?.name ?? 'nothing'}>`);
      i += m[0].length;
      continue;
    }
    i++;
    const name = NAME.exec(text.slice(i))?.[0];
    if (!name) throw new Error(`a broken tag at ${i}: ${JSON.stringify(text.slice(i - 1, i + 20))}`);
    i += name.length;
    const el: XmlElement = { name, attrs: {}, children: [] };
    for (;;) {
      const m = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(text.slice(i));
      if (!m) break;
      if (m[1]! in el.attrs) throw new Error(`${m[1]} twice on <${name}>`);
      el.attrs[m[1]!] = decode(m[2] ?? m[3] ?? '', `an attribute of <${name}>`);
      i += m[0].length;
    }
    const close = /^\s*(\/?)>/.exec(text.slice(i));
    if (!close) throw new Error(`<${name}> is broken at ${JSON.stringify(text.slice(i, i + 20))}`);
    i += close[0].length;
    if (stack.length > 0) stack.at(-1)!.children.push(el);
    else root = el;
    if (close[1] !== '/') stack.push(el);
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element named `name` below (and including) `el`, in document order. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = el.name === name ? [el] : [];
  for (const c of el.children) if (typeof c !== 'string') out.push(...findAll(c, name));
  return out;
}

/** The text of an element and everything in it. */
export function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}
