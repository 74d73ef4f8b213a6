/**
 * `weft/dev`: a local stand-in for the trace, inference and training services, for tests, examples and
 * development without an account or a network.
 *
 * @packageDocumentation
 */
export { startDevService, type DevService, type DevServiceOptions } from './service.js';
export { runDevCommand, DEV_USAGE, UsageError, type CommandIo } from './cli.js';
export { countTokens } from './inference/tokenizer.js';
export { OFFLINE_MODEL_IDS } from './inference/offline-model.js';
export { SPEC_PATHS } from './spec-paths.js';
export { DEV_SERVICE_VERSION } from './trace/info-routes.js';
