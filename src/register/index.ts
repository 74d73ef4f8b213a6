export type { ExportStats } from './export-stats.js';
export type { BatchOptions, ExportOptions, RegisterOptions } from './options.js';
export { register, type WeftHandle } from './register.js';
export {
  OTLP_TRACES_PATH,
  type WeftSpanProcessor,
  weftResourceAttributes,
  weftSpanProcessor,
} from './span-processor.js';
export { registerFromEnvironment } from './from-environment.js';
export { weftBundle } from './bundled.js';
