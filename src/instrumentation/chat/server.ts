import { ENV, isLoopbackUrl, resolveServiceUrl } from '../../config/settings.js';
import { GEN_AI_PROVIDER_AZURE_OPENAI, GEN_AI_PROVIDER_OPENAI } from '../../semconv.js';

/** Where a chat call goes: `server.address`, `server.port`, and the `gen_ai.provider.name` it implies. */
export interface ChatServer {
  readonly address: string | undefined;
  readonly port: number | undefined;
  readonly providerName: string;
  /**
   * Whether the server sends a stream's usage chunk without being asked, as the platform's inference and training
   * services do (`stream_options.include_usage` defaults to true there): weft then neither asks nor hides.
   */
  readonly sendsStreamUsage: boolean;
}

// Hosts of providers with an OpenAI-compatible endpoint, by host suffix, mapped to semconv provider names.
const PROVIDERS_BY_HOST: ReadonlyArray<readonly [suffix: string, provider: string]> = [
  ['openai.azure.com', GEN_AI_PROVIDER_AZURE_OPENAI],
  // Azure AI Foundry resources serve Azure OpenAI from their Cognitive Services endpoint too.
  ['cognitiveservices.azure.com', GEN_AI_PROVIDER_AZURE_OPENAI],
  ['services.ai.azure.com', 'azure.ai.inference'],
  ['models.inference.ai.azure.com', 'azure.ai.inference'],
  ['models.ai.azure.com', 'azure.ai.inference'],
  ['api.groq.com', 'groq'],
  ['api.deepseek.com', 'deepseek'],
  ['api.mistral.ai', 'mistral_ai'],
  ['api.x.ai', 'x_ai'],
  ['api.perplexity.ai', 'perplexity'],
  ['api.moonshot.ai', 'moonshot_ai'],
  ['api.moonshot.cn', 'moonshot_ai'],
  ['api.anthropic.com', 'anthropic'],
  ['api.cohere.ai', 'cohere'],
  ['api.cohere.com', 'cohere'],
  ['generativelanguage.googleapis.com', 'gcp.gemini'],
  ['aiplatform.googleapis.com', 'gcp.vertex_ai'],
  ['cloud.ibm.com', 'ibm.watsonx.ai'],
];

// Hosts that send a stream's usage chunk unasked (reference training-inference.md: the training service's schema
// defaults `include_usage` to true, §1.8; the inference docs' stream ends with one unasked, §2.2).
const STREAM_USAGE_BY_DEFAULT = new Set(['api.inference.wandb.ai', 'api.training.wandb.ai']);

// Origins where this process's own platform services are, besides the environment's (see platformOrigins): the
// trace service register() sends to, when it is `weft dev`, which serves the inference and training services too.
const registeredOrigins = new Set<string>();

/**
 * Tells chat tracing where the platform's services are for this process: a `weft dev` (any loopback base URL)
 * serves inference and training chat on the same origin, and sends usage unasked as the hosted services do.
 */
export function rememberPlatformBaseUrl(baseUrl: string): void {
  if (isLoopbackUrl(baseUrl)) rememberPlatformServiceUrl(baseUrl);
}

/**
 * Tells chat tracing where one of the platform's services is, as the app configured it (`register()`'s
 * `inferenceBaseUrl` and `trainingBaseUrl`, the client's options in a config object shared with it), as
 * `WEFT_INFERENCE_BASE_URL` and `WEFT_TRAINING_BASE_URL` do: an `openai` client pointed there gets usage unasked.
 */
export function rememberPlatformServiceUrl(url: string): void {
  const origin = originOf(url);
  if (origin === undefined || registeredOrigins.has(origin)) return;
  registeredOrigins.add(origin);
  // What was read of the servers before may now be wrong for this one.
  parsedServers.clear();
  lastServer = undefined;
}

/**
 * Reads the server from a client's base URL. The provider is taken from well-known hosts; anything else
 * (api.openai.com, a proxy, a local server) counts as `openai`, whose API it speaks. `providerName` overrides.
 */
export function chatServer(serverUrl: string | undefined, providerName?: string): ChatServer {
  // A client calls with the same base URL every time: the last one is checked first, without building a key.
  if (lastServer && lastServer.url === serverUrl && lastServer.providerName === providerName) return lastServer.server;
  // An app with several clients goes round a few URLs: each is parsed (URL and environment) once, not at every switch.
  const key = `${providerName ?? ''} ${serverUrl ?? ''}`;
  let server = parsedServers.get(key);
  if (!server) {
    server = parseServer(serverUrl, providerName);
    if (parsedServers.size >= MAX_PARSED_SERVERS) parsedServers.clear();
    parsedServers.set(key, server);
  }
  lastServer = { url: serverUrl, providerName, server };
  return server;
}

let lastServer: { url: string | undefined; providerName: string | undefined; server: ChatServer } | undefined;
const parsedServers = new Map<string, ChatServer>();
/** Far more base URLs than an app has clients; one made per request (a URL with a query, say) cannot grow it. */
const MAX_PARSED_SERVERS = 64;

function parseServer(serverUrl: string | undefined, providerName: string | undefined): ChatServer {
  let address: string | undefined;
  let port: number | undefined;
  if (serverUrl) {
    try {
      const url = new URL(serverUrl);
      address = url.hostname.replace(/^\[(.*)\]$/, '$1') || undefined;
      port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    } catch {
      // Not a URL: record no server rather than a wrong one.
    }
  }
  const sendsStreamUsage =
    address !== undefined && (STREAM_USAGE_BY_DEFAULT.has(address.toLowerCase()) || platformOrigins().has(originOf(serverUrl)));
  return { address, port, providerName: providerName ?? providerFor(address), sendsStreamUsage };
}

/**
 * Origins of the platform's inference and training services as this process is configured: the environment's
 * (`WEFT_INFERENCE_BASE_URL`, `WEFT_TRAINING_BASE_URL`, or `weft dev` at `WEFT_BASE_URL` or its default address),
 * and register()'s. An `openai` client pointed at one gets the usage chunk without asking, as weft's own client does.
 */
function platformOrigins(): Set<string | undefined> {
  const origins = new Set<string | undefined>(registeredOrigins);
  for (const [option, envVar] of [
    ['inferenceBaseUrl', ENV.inferenceBaseUrl],
    ['trainingBaseUrl', ENV.trainingBaseUrl],
  ] as const) {
    try {
      origins.add(originOf(resolveServiceUrl(undefined, option, envVar)));
    } catch {
      // A variable weft's client would refuse names no service: nothing to match.
    }
  }
  return origins;
}

/** A URL's origin, loopback hosts written alike (`localhost`, `127.0.0.1` and `[::1]` are one machine). */
function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return isLoopbackUrl(url) ? `${parsed.protocol}//loopback:${parsed.port}` : parsed.origin;
  } catch {
    return undefined;
  }
}

function providerFor(host: string | undefined): string {
  if (!host) return GEN_AI_PROVIDER_OPENAI;
  const lower = host.toLowerCase();
  if (lower.startsWith('bedrock') && lower.endsWith('.amazonaws.com')) return 'aws.bedrock';
  for (const [suffix, provider] of PROVIDERS_BY_HOST) {
    if (lower === suffix || lower.endsWith(`.${suffix}`)) return provider;
  }
  return GEN_AI_PROVIDER_OPENAI;
}
