import { ENV } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';

// OTel's variables for where an SDK's OTLP exporter sends traces; weft's exporter is configured by its own.
const OTLP_ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

/**
 * Says, once, that weft sends its spans to the local `weft dev` although an OTLP endpoint variable points traces
 * elsewhere: an app moved to weft from an OTel SDK set up by those variables would see its spans go nowhere it
 * looks. Said only when nothing configured weft's own address (`baseUrl`, `WEFT_BASE_URL`), which is then the embedded
 * default; with an address of weft's, the variables are another exporter's business.
 */
export function warnIfOtlpEndpointIgnored(baseUrlOption: unknown, baseUrl: string, env: Record<string, string | undefined> = process.env): void {
  if (baseUrlOption !== undefined || env[ENV.baseUrl]?.trim()) return;
  const variable = OTLP_ENDPOINT_VARIABLES.find((name) => env[name]?.trim());
  if (variable === undefined) return;
  reportOnce(
    'otlp-endpoint-ignored',
    `${variable} is set, but weft sends its spans to the trace service at its own address, which nothing set: they go to the local weft dev at ${baseUrl}. Set WEFT_BASE_URL (or register({ baseUrl })) to the trace service; OTel's OTLP variables configure an OTel SDK's exporter, not weft's.`,
  );
}
