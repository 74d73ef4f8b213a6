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

/**
 * The environment of a child app traced against `peers`: weft exports to the receiver, `openai` calls the chat
 * server with `apiKey`; `extra` adds to it or overrides.
 */
export function tracedAppEnv(peers: LoopbackPeers, apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { WEFT_BASE_URL: peers.receiver.url, OPENAI_BASE_URL: peers.server.baseURL, OPENAI_API_KEY: apiKey, ...extra };
}
