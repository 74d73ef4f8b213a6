import { describe, expect, it } from 'vitest';
import { WeftConfigError } from '../../../src/config/index.js';
import { sendJson } from '../core/recording-server.js';
import type { Client } from '../../../src/client/index.js';
import { useRecordingClient } from './recording-client.js';

const peer = useRecordingClient((_req, res) => sendJson(res, 200, { num_deleted: 1 }));

/** Each v2 delete that selects by a list of ids, called with an empty list. */
const EMPTY_DELETES: Array<[string, string, (c: Client) => Promise<unknown>]> = [
  ['scores', 'score_ids', (c) => c.trace.v2.scores.delete({ score_ids: [] })],
  ['predictions', 'prediction_ids', (c) => c.trace.v2.predictions.delete({ prediction_ids: [] })],
  ['evaluation runs', 'evaluation_run_ids', (c) => c.trace.v2.evaluationRuns.delete({ evaluation_run_ids: [] })],
  ['dataset versions', 'digests', (c) => c.trace.v2.datasets.delete('my-dataset', { digests: [] })],
];

describe('a v2 delete given an empty list of ids', () => {
  for (const [what, param, call] of EMPTY_DELETES) {
    it(`refuses to delete ${what} and sends nothing, naming \`${param}\``, async () => {
      const error = await call(peer.client).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WeftConfigError);
      expect((error as WeftConfigError).option).toBe(param);
      expect((error as Error).message).toContain(`\`${param}\``);
      expect(peer.server.requests).toHaveLength(0);
    });
  }

  it('still sends a delete with ids, one query value per id', async () => {
    await peer.client.trace.v2.scores.delete({ score_ids: ['s1', 's2'] });
    expect(peer.server.requests[0]?.method).toBe('DELETE');
    expect(peer.server.requests[0]?.query).toEqual({ score_ids: ['s1', 's2'] });
  });

  it('still deletes every version when digests is left out', async () => {
    await peer.client.trace.v2.datasets.delete('my-dataset');
    expect(peer.server.requests[0]?.path).toBe('/v2/team/proj/datasets/my-dataset');
    expect(peer.server.requests[0]?.query).toEqual({});
  });
});
