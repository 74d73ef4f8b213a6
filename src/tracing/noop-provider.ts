import { ProxyTracerProvider, type TracerProvider } from '@opentelemetry/api';

// The API does not export its no-op provider, but a proxy with no delegate hands back that very instance.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether `provider` is missing or is the API's no-op provider, directly or as a proxy's delegate: nothing real
 * has been registered. Compared by identity, which a minifier cannot break; the class name is the fallback for
 * the no-op provider of another copy of `@opentelemetry/api` in the same process.
 */
export function isNoopTracerProvider(provider: TracerProvider | undefined): boolean {
  if (!provider) return true;
  const proxy = provider as { getDelegate?: () => unknown };
  const delegate = typeof proxy.getDelegate === 'function' ? proxy.getDelegate() : provider;
  return delegate === NOOP_PROVIDER || (delegate as { constructor?: { name?: string } } | undefined)?.constructor?.name === 'NoopTracerProvider';
}
