import { afterEach, beforeEach } from 'vitest';
import { HELLO, type OpenAIServer, type ScriptedReply, startOpenAIServer } from './openai-server.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';

/** The two loopback peers of a traced app: the OTLP receiver its spans go to, and the chat server it calls. */
export interface LoopbackPeers {
  readonly receiver: OtlpReceiver;
  readonly server: OpenAIServer;
}

/**
 * Starts a fresh receiver and chat server (replying `reply`) before each test of the file, and closes them after:
 * read them through the returned object, whose fields are the current test's.
 */
export function loopbackPeersPerTest(reply: ScriptedReply = HELLO): LoopbackPeers {
  const peers = {} as { receiver: OtlpReceiver; server: OpenAIServer };
  beforeEach(async () => {
    peers.receiver = await startOtlpReceiver();
    peers.server = await startOpenAIServer(reply);
  });
  afterEach(async () => {
    await peers.server.close();
    await peers.receiver.close();
  });
  return peers;
}
