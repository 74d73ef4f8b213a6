import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/client/index.js';
import { useRecordingClient } from './recording-client.js';

const peer = useRecordingClient();

/** Trace methods whose path holds an id, each given an id a URL cannot carry. */
const BAD_IDS: Array<[string, (c: Client) => Promise<unknown>]> = [
  ['objs.setAliases', (c) => c.trace.objs.setAliases('', { digest: 'd', aliases: ['a'] })],
  ['objs.addTags', (c) => c.trace.objs.addTags('obj', '..', { tags: ['t'] })],
  ['annotationQueues.read', (c) => c.trace.annotationQueues.read('')],
  ['inferenceInfo.analysisModels', (c) => c.trace.inferenceInfo.analysisModels('')],
  ['v2.scores.read', (c) => c.trace.v2.scores.read('')],
  ['v2.evaluationRuns.finish', (c) => c.trace.v2.evaluationRuns.finish('.')],
  ['v2.datasets.read', (c) => c.trace.v2.datasets.read('', 'digest')],
];

describe('a trace method given an id a path cannot hold', () => {
  for (const [name, call] of BAD_IDS) {
    it(`${name} returns a rejected promise, not a throw, and sends nothing`, async () => {
      let result: Promise<unknown> | undefined;
      expect(() => {
        result = call(peer.client);
      }).not.toThrow();
      await expect(result).rejects.toBeInstanceOf(TypeError);
      expect(peer.server.requests).toHaveLength(0);
    });
  }
});
