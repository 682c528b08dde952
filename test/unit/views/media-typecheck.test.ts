// The page scripts (media/*.js) are plain JS checked by tsc against the same message unions as the
// host (src/protocol/). This runs that check, and shows that it catches a page posting an unknown message.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

function typecheck(project: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd: repo, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('media page scripts type-check against src/protocol', function () {
  this.timeout(60_000);

  it('media/tsconfig.json has no errors', () => {
    const r = typecheck(path.join(repo, 'media', 'tsconfig.json'));
    assert.equal(r.output.trim(), '');
    assert.equal(r.status, 0);
  });

  it('a page posting a message outside its union, or reading a field its host never sends, fails the check', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-media-'));
    try {
      const chat = path.join(repo, 'src', 'protocol', 'chat').split(path.sep).join('/');
      fs.writeFileSync(path.join(dir, 'bad.js'), `// @ts-check
/** @typedef {import('${chat}').FromChatPage} FromChatPage */
/** @typedef {import('${chat}').ToChatPage} ToChatPage */
/** @type {VsCodeApi<FromChatPage>} */
const vscode = acquireVsCodeApi();
vscode.postMessage({ type: 'sendd', text: 'x' });
vscode.postMessage({ type: 'variant', id: 'a', delta: 2 });
window.addEventListener('message', (event) => {
  /** @type {ToChatPage} */
  const msg = event.data;
  if (msg.type === 'stream') console.log(msg.model);
});
`);
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
        extends: path.join(repo, 'media', 'tsconfig.json'),
        compilerOptions: { typeRoots: [path.join(repo, 'node_modules', '@types')] },
        include: [path.join(dir, 'bad.js'), path.join(repo, 'media', 'pages.d.ts')],
      }));
      const r = typecheck(path.join(dir, 'tsconfig.json'));
      assert.notEqual(r.status, 0, r.output);
      assert.match(r.output, /bad\.js\(6,\d+\): error TS2\d+: Type '"sendd"' is not assignable/);
      assert.match(r.output, /bad\.js\(7,\d+\): error TS2322/);
      assert.match(r.output, /bad\.js\(11,\d+\): error TS2339/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
