import { expect, it } from 'vitest';
import { startNode } from '../helpers/child.js';
import { fixture } from './helpers/run-fixture.js';

// The suite's children run under a time limit: a hung one must fail its test and leave nothing running.

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (boundedly) for a killed process to be gone: the kernel reaps it shortly after the signal. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}

it('kills a child that runs past its time limit, with the process it started, and rejects saying so', async () => {
  const app = startNode([fixture('hang.cjs')], {}, { timeoutMs: 1500 });
  let printed = '';
  app.child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  await app.waitForOutput('GRANDCHILD');
  const grandchild = Number(/GRANDCHILD (\d+)/.exec(printed)?.[1]);
  await expect(app.exited).rejects.toThrow(/was still running after 1500 ms and was killed/);
  expect(await gone(app.child.pid!)).toBe(true);
  expect(await gone(grandchild)).toBe(true);
});

it('stops waiting for output that never comes, and kills the child', async () => {
  const app = startNode([fixture('hang.cjs')], { HANG_SILENTLY: '1' });
  await expect(app.waitForOutput('READY', 1000)).rejects.toThrow(/did not print "READY" within 1000 ms and was killed/);
  expect((await app.exited).signal).toBe('SIGKILL');
});

it('stops waiting for output as soon as the child exits without printing it', async () => {
  const app = startNode(['-e', 'process.exit(3)']);
  await expect(app.waitForOutput('READY')).rejects.toThrow(/exited \(3\) without printing "READY"/);
});
