import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../../helpers/child.js';
import { type RecordingServer, sendJson, startRecordingServer } from './recording-server.js';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer((_req, res) => sendJson(res, 404, { detail: 'Not Found' }));
});
afterAll(() => server.close());

describe('errors of the client in an app that loads both builds of weft (ES module and CommonJS)', () => {
  it('are instances of the matching classes of either build, and of no other', async () => {
    const result = await runNode(['test/client/core/fixtures/dual-build-errors.mjs'], { SERVER_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      'import.WeftError': true,
      'import.WeftApiError': true,
      'import.WeftNotFoundError': true,
      'import.WeftAuthenticationError': false,
      'import.WeftConnectionError': false,
      'require.WeftError': true,
      'require.WeftApiError': true,
      'require.WeftNotFoundError': true,
      'require.WeftAuthenticationError': false,
      'require.WeftConnectionError': false,
      configError: true,
      plainObject: false,
      objectWithLineage: false,
      baseAsSubclass: false,
      subclassAsBase: true,
      appClassesByName: false,
      copiesDiffer: true,
    });
  });
});
