export type { ExportStats } from './export-stats.js';
export type { BatchOptions, ExportOptions, RegisterOptions } from './options.js';
export { register, type WeftHandle } from './register.js';
export { weftResourceAttributes } from './resource.js';
export { OTLP_TRACES_PATH, type WeftSpanProcessor, weftSpanProcessor } from './span-processor.js';
// For weft/register alone, which imports them by name from 'weft' to share the app's copy; kept out of the types.
/** @internal */
export { registerFromEnvironment } from './from-environment.js';
/** @internal */
export { weftBundle } from './bundled.js';
