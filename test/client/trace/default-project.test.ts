import { describe, expect, it } from 'vitest';
import { useRecordingClient } from './recording-client.js';

const peer = useRecordingClient();

describe("a trace request's project_id", () => {
  it('is the client project when the request says project_id: undefined (body)', async () => {
    await peer.client.trace.calls.queryStats({ project_id: undefined });
    expect(peer.server.requests[0]?.json()).toEqual({ project_id: 'team/proj' });
  });

  it('is the client project when the request says project_id: undefined (query)', async () => {
    await peer.client.trace.annotationQueues.read('q1', { project_id: undefined });
    expect(peer.server.requests[0]?.query).toEqual({ project_id: 'team/proj' });
  });

  it("is the request's own when it names one", async () => {
    await peer.client.trace.calls.queryStats({ project_id: 'other/proj' });
    expect(peer.server.requests[0]?.json()).toEqual({ project_id: 'other/proj' });
  });
});
