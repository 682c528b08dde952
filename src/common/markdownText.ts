// Text from a novelist or a model inside Markdown the editor renders (a tree item's tooltip): it
// must read as the text it is, never as a link, an image, HTML, a heading or a list. Every ASCII
// punctuation mark is backslash-escaped (CommonMark lets any of them be escaped, and an escaped
// one starts nothing: no `[`/`](` link, no `<tag>`, no `www.`/`http://`/`a@b.c` autolink, no
// `&entity;`), line breaks and other controls become spaces (a new line could open a block) and
// bidi controls go (they reorder what is shown).

const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const PUNCTUATION = /[!-/:-@[-`{-~]/gu;

/** `text` as one line of Markdown that shows exactly its characters. */
export function markdownText(text: string): string {
  return text.replace(BIDI, '').replace(CONTROLS, ' ').replace(/ {2,}/gu, ' ').replace(PUNCTUATION, '\\$&');
}
