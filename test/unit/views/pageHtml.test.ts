// The webview page: the CSP is the strict one (no inline script but the nonced ones, nothing from
// outside the webview), every script carries the nonce, and no label, title or URI, however
// hostile, can end a tag or add an attribute: the bootstrap JSON reads back exactly.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { contentSecurityPolicy, makeNonce, pageHtml, pageResources, type PageParts } from '../../../src/protocol/pageHtml';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function parts(over: Partial<PageParts> = {}): PageParts {
  return {
    cspSource: CSP_SOURCE,
    scriptUris: ['https://x/media/dom.js', 'https://x/media/chat.js'],
    styleUris: ['https://x/dist/codicons/codicon.css', 'https://x/media/common.css'],
    nonce: 'abc123',
    title: 'Chat',
    labels: { send: 'Send' },
    lang: 'en',
    ...over,
  };
}

function cspOf(html: string): string {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, 'a CSP meta tag');
  return m[1]!.replace(/&#39;|&apos;/g, "'");
}

/** The elements the HTML parser would see start: every "<" that opens a tag or ends a script. */
function tagsOf(html: string): string[] {
  return [...html.matchAll(/<\/?[A-Za-z!][^>]*>/g)].map((m) => m[0]);
}

describe('webview page HTML', () => {
  it('keeps the strict CSP exactly', () => {
    assert.equal(contentSecurityPolicy(CSP_SOURCE, 'N0nce'),
      `default-src 'none'; img-src ${CSP_SOURCE} data:; style-src ${CSP_SOURCE}; font-src ${CSP_SOURCE}; script-src 'nonce-N0nce'`);
    const csp = cspOf(pageHtml(parts()));
    assert.equal(csp, contentSecurityPolicy(CSP_SOURCE, 'abc123'));
    const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));
    assert.deepEqual(directives.get('script-src'), ["'nonce-abc123'"]);
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.ok(!/unsafe-inline|unsafe-eval|\*/.test(csp), csp);
  });

  it('gives every script the nonce, and loads the styles and scripts in order', () => {
    const html = pageHtml(parts());
    const scripts = tagsOf(html).filter((t) => t.startsWith('<script'));
    assert.equal(scripts.length, 3);
    for (const s of scripts) assert.match(s, /^<script nonce="abc123"[ >]/);
    assert.deepEqual(scripts.slice(1).map((s) => /src="([^"]*)"/.exec(s)?.[1]), parts().scriptUris);
    assert.deepEqual(tagsOf(html).filter((t) => t.startsWith('<link')).map((t) => /href="([^"]*)"/.exec(t)?.[1]), parts().styleUris);
    assert.match(html, /<html lang="en">/);
    assert.match(pageHtml(parts({ lang: 'zh' })), /<html lang="zh-CN">/);
  });

  it('a label holding </script> cannot end the bootstrap tag', () => {
    const evil = '</script><script>alert(1)</script><!--';
    const html = pageHtml(parts({ labels: { send: evil, [evil]: 'x' } }));
    const scriptEnds = html.match(/<\/script/gi) ?? [];
    assert.equal(scriptEnds.length, 3, 'one per script tag, none from the label');
    const boot = /<script nonce="abc123" type="application\/json" id="bootstrap">([^<]*)<\/script>/.exec(html);
    assert.ok(boot);
    assert.deepEqual(JSON.parse(boot[1]!), { labels: { send: evil, [evil]: 'x' } });
  });

  it('whatever the labels, title and URIs hold, the tags stay as built and the labels read back', () => {
    const hostile = fc.oneof(fc.string(), fc.constantFrom('</script>', '</SCRIPT >', '"><img src=x onerror=alert(1)>', '<!--', ']]>', '\u2028', '&quot;'));
    fc.assert(fc.property(
      fc.dictionary(hostile, hostile, { maxKeys: 6 }), hostile, fc.array(hostile, { maxLength: 3 }), fc.array(hostile, { maxLength: 3 }),
      (labels, title, scriptUris, styleUris) => {
        const html = pageHtml(parts({ labels, title, scriptUris, styleUris }));
        const tags = tagsOf(html);
        assert.equal(tags.filter((t) => /^<script/i.test(t)).length, 1 + scriptUris.length);
        assert.equal(tags.filter((t) => /^<\/script/i.test(t)).length, 1 + scriptUris.length);
        assert.equal(tags.filter((t) => /^<link/i.test(t)).length, styleUris.length);
        assert.equal(tags.filter((t) => /^<(img|!--)/i.test(t)).length, 0);
        const boot = /id="bootstrap">([^<]*)<\/script>/.exec(html);
        assert.ok(boot);
        assert.deepEqual(JSON.parse(boot[1]!), { labels: Object.fromEntries(Object.entries(labels)) });
        assert.equal(cspOf(html), contentSecurityPolicy(CSP_SOURCE, 'abc123'));
      },
    ), { numRuns: runs(300, 5000) });
  });

  it('makes a fresh alphanumeric nonce for every page', () => {
    const nonces = Array.from({ length: 50 }, makeNonce);
    assert.equal(new Set(nonces).size, nonces.length);
    for (const n of nonces) assert.match(n, /^[A-Za-z0-9]{16,}$/);
  });

  it('names the page files and the folders the webview may read', () => {
    assert.deepEqual(pageResources('state'), {
      scripts: ['media/dom.js', 'media/state.js'],
      styles: ['dist/codicons/codicon.css', 'media/common.css', 'media/state.css'],
      roots: ['media', 'dist/codicons'],
    });
  });
});
