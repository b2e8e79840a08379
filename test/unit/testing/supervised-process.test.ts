import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManagedProcess } from '../../../src/testing/process.ts';
import { SupervisedProcess } from '../../../src/testing/supervised-process.ts';

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a supervised component that exits on its own is started again, with a line in its log; stop() ends it for good', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-supervised-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'component.log');
  let starts = 0;
  // The first start exits at once with code 3, as a controller manager whose controllers fail to build.
  const sup = new SupervisedProcess('component', () => {
    starts++;
    const script = starts === 1 ? 'process.exit(3)' : 'setInterval(() => {}, 1000)';
    return ManagedProcess.start('component', process.execPath, ['-e', script], { logFile });
  });
  await until('the second start', () => starts === 2 && sup.running);
  assert.equal(sup.restarts, 1);
  assert.match(readFileSync(logFile, 'utf8'), /component exited \(code 3\); starting it again/);

  await sup.stop();
  assert.equal(sup.running, false);
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(starts, 2, 'a stopped component is not started again');
});
