import { reportOnce } from '../diagnostics.js';

/**
 * Whether OTel's standard `OTEL_SDK_DISABLED` is `true` (in any case), which turns the SDK, and weft, off. Any other
 * value leaves it on, as the OTel spec reads a boolean variable; one that is not `false` either (`1`, `yes`) is said
 * once, since whoever set it meant something.
 */
export function sdkDisabled(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.OTEL_SDK_DISABLED?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value && value !== 'false') {
    reportOnce(
      'otel-sdk-disabled-value',
      `OTEL_SDK_DISABLED must be true or false, got ${JSON.stringify(env.OTEL_SDK_DISABLED)}: tracing stays on, as OTel reads any value but true. Set OTEL_SDK_DISABLED=true to turn it off.`,
    );
  }
  return false;
}
