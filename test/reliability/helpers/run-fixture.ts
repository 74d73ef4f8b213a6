import { fileURLToPath } from 'node:url';
import { type ChildResult, type NodeOptions, type RunningChild, runNode, startNode } from '../../helpers/child.js';

/** Path of a script in test/fixtures/reliability/. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/reliability/${name}`, import.meta.url));
}

/** Every `REPORT {json}` line a fixture printed, parsed, in order. */
export function reportsOf(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('REPORT '))
    .map((line) => JSON.parse(line.slice('REPORT '.length)) as Record<string, unknown>);
}

/** A finished fixture run with its reports. */
export interface FixtureRun extends ChildResult {
  reports: Record<string, unknown>[];
}

/** Runs a fixture to completion in its own `node` process, from the repository root. */
export async function runFixture(
  name: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  options: NodeOptions = {},
): Promise<FixtureRun> {
  const result = await runNode([...nodeArgs, fixture(name)], env, options);
  return { ...result, reports: reportsOf(result.stdout) };
}

/** Starts a fixture and returns it running (to send it a signal). */
export function startFixture(name: string, env: Record<string, string>, nodeArgs: string[] = [], options: NodeOptions = {}): RunningChild {
  return startNode([...nodeArgs, fixture(name)], env, options);
}

/** Options of register() for a fixture, as the WEFT_OPTIONS variable. */
export function weftOptions(options: Record<string, unknown>): Record<string, string> {
  return { WITH_WEFT: '1', WEFT_OPTIONS: JSON.stringify(options) };
}
