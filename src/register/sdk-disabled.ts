/** Whether OTel's standard `OTEL_SDK_DISABLED` is `true` (in any case), which turns the SDK, and weft, off. */
export function sdkDisabled(env: Record<string, string | undefined> = process.env): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}
