import type { Tracer } from '@opentelemetry/api';
import {
  type ChatCompletionRequest,
  type ResolvedChatTracingConfig,
  type TraceChatCompletionOptions,
  reportInternalError,
  traceChatCompletion,
} from '../chat/index.js';
import { GEN_AI_PROVIDER_AZURE_OPENAI } from '../../semconv.js';
import { keepUnwrapped, settleApiPromise } from './api-promise.js';
import { helperSettler } from './stream-helpers.js';

// `parse` calls `create` on the same client, synchronously; its span is the parse's, so the inner `create` must not
// add another. A count rather than a context: entering a context would switch on Node's async hooks for good.
let insideParse = 0;
/** What the completion of the `parse` running now will be known by (see {@link keepUnwrapped}). */
let receivedInsideParse: (() => unknown) | undefined;

/** What a patched method needs from the instrumentation, read at call time so `setConfig`/`setTracerProvider` apply. */
export interface PatchHost {
  isEnabled(): boolean;
  tracer(): Tracer;
  chatConfig(): ResolvedChatTracingConfig;
  /**
   * Whether it was given a tracer provider that is not the no-op one (by register() or registerInstrumentations()).
   * Optional: hosts from an older copy of weft in the same process lack it and count as given one.
   */
  hasTracerProvider?(): boolean;
  /** Takes over a patch another instance installed and is disabling, so that it is undone when this one is. */
  adoptPatch?(prototype: object, methods: readonly AdoptedMethod[]): void;
}

/** The methods weft replaces: chat `create` and `parse`, and the streaming helpers (openai 4's `runFunctions` too). */
export type PatchedMethodName = 'create' | 'parse' | 'stream' | 'runTools' | 'runFunctions';

/** A method of `Completions.prototype` weft replaced, handed from one instance to another. */
export interface AdoptedMethod {
  name: PatchedMethodName;
  /**
   * What the wrapper calls: the method it replaced, or what is left of it once another instrumentation's wrapper was
   * unwrapped from under weft's (see `__unwrap` in instrumentation.ts).
   */
  original: Method;
  wrapper: Method;
}

/** A patched method of `Completions.prototype`, and its wrapper. */
export type Method = (this: unknown, ...args: unknown[]) => unknown;

interface ClientShape {
  baseURL?: unknown;
  apiKey?: unknown;
  /** Set on openai's `AzureOpenAI` clients only. */
  apiVersion?: unknown;
}

/** Wraps `Completions.prototype.create` (or `.parse`) so every call goes through {@link traceChatCompletion}. */
export function tracedCompletionsMethod(
  currentHost: () => PatchHost | undefined,
  replaced: Pick<AdoptedMethod, 'original'>,
  kind: 'create' | 'parse',
): Method {
  return function weftTracedCompletions(this: unknown, ...args: unknown[]): unknown {
    const original = replaced.original;
    // Only the decision is guarded: the original runs once, outside, so its own errors reach the app unchanged.
    // The host is looked up once per call, so its tracer and options come from the same instance.
    let host: PatchHost | undefined;
    let options: TraceChatCompletionOptions<unknown> | undefined;
    try {
      const body = args[0];
      if (body && typeof body === 'object' && insideParse === 0) {
        host = currentHost();
        if (host) options = callOptions(host, clientOf(this));
        // A call of openai's stream helper (chat.completions.stream(), runTools()): see stream-helpers.ts.
        if (options && kind === 'create') options.settle = helperSettler(args[1]) ?? options.settle;
      }
    } catch (error) {
      reportInternalError('openai patch', error);
    }
    if (!host || !options) {
      const result = original.apply(this, args);
      if (insideParse > 0 && kind === 'create') receivedInsideParse = keepUnwrapped(result);
      return result;
    }
    const rest = args.slice(1);
    if (kind === 'create') {
      return traceChatCompletion(host.tracer(), args[0] as ChatCompletionRequest, (request) => original.call(this, request, ...rest), options);
    }
    let received: (() => unknown) | undefined;
    const invoke = (request: ChatCompletionRequest): unknown => {
      insideParse += 1;
      try {
        return original.call(this, request, ...rest);
      } finally {
        insideParse -= 1;
        received = receivedInsideParse;
        receivedInsideParse = undefined;
      }
    };
    options.settle = (result, call) => settleApiPromise(result, call, received);
    return traceChatCompletion(host.tracer(), args[0] as ChatCompletionRequest, invoke, options);
  };
}

/** The client a `Completions` resource belongs to: `_client` since openai 4.x's later releases, `client` before. */
function clientOf(resource: unknown): ClientShape | undefined {
  const { _client, client } = (resource ?? {}) as { _client?: ClientShape; client?: ClientShape };
  return _client ?? client;
}

function callOptions(host: PatchHost, client: ClientShape | undefined): TraceChatCompletionOptions<unknown> {
  const azureApiVersion = typeof client?.apiVersion === 'string' && client.apiVersion ? client.apiVersion : undefined;
  return {
    config: host.chatConfig(),
    serverUrl: typeof client?.baseURL === 'string' ? client.baseURL : undefined,
    // An AzureOpenAI client speaks Azure OpenAI whatever its host (a gateway, a custom domain).
    providerName: azureApiVersion ? GEN_AI_PROVIDER_AZURE_OPENAI : undefined,
    serverRejectsStreamOptions: azureApiVersion !== undefined && predatesStreamOptions(azureApiVersion),
    secrets: [typeof client?.apiKey === 'string' ? client.apiKey : undefined],
    settle: settleApiPromise,
  };
}

/**
 * Whether an Azure OpenAI API version (`2024-06-01`, `2024-08-01-preview`) is older than 2024-09-01-preview, the
 * first to take `stream_options`: the older ones answer a request that has it with a 400.
 */
function predatesStreamOptions(apiVersion: string): boolean {
  return /^\d{4}-\d{2}-\d{2}/.test(apiVersion) && apiVersion.slice(0, 10) < '2024-09-01';
}
