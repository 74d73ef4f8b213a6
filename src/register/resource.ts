import { defaultResource, detectResources, envDetector, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { type ProjectRef, resolveConnection } from '../config/index.js';
import { reportOnce } from '../diagnostics.js';
import { VERSION } from '../version.js';
import type { ExportOptions } from './options.js';

const ENTITY_ATTRIBUTE = 'wandb.entity';
const PROJECT_ATTRIBUTE = 'wandb.project';

/** The resource attributes that route spans to a project, set from the `project` option (an app's own are refused). */
export const ROUTING_ATTRIBUTES: readonly string[] = [ENTITY_ATTRIBUTE, PROJECT_ATTRIBUTE];

/** The resource attributes that route spans to a project in the trace service. */
export function weftResourceAttributes(options: Pick<ExportOptions, 'project' | 'baseUrl'> = {}): Record<string, string> {
  return routingAttributes(resolveConnection(options).project);
}

/** {@link weftResourceAttributes} for a project already resolved. */
export function routingAttributes(project: ProjectRef): Record<string, string> {
  return { [ENTITY_ATTRIBUTE]: project.entity, [PROJECT_ATTRIBUTE]: project.project };
}

/**
 * The resource of every span: OTel's defaults, then `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`, then
 * the user's attributes and weft's routing ones, which win (`register()` refuses routing attributes of the user's).
 */
export function buildResource(
  routing: Record<string, string>,
  serviceName: string | undefined,
  extra: Record<string, string | number | boolean> = {},
): Resource {
  warnIfResourceAttributesDropped();
  warnIfRoutingOverridden(routing);
  const own: Record<string, string | number | boolean> = { 'weft.version': VERSION, ...extra, ...routing };
  if (serviceName !== undefined) own['service.name'] = serviceName;
  return defaultResource().merge(detectResources({ detectors: [envDetector] })).merge(resourceFromAttributes(own));
}

const RESOURCE_ATTRIBUTES_ENV = 'OTEL_RESOURCE_ATTRIBUTES';
/** The SDK's longest key or value, decoded. */
const MAX_LENGTH = 255;

/**
 * Says, once, that `OTEL_RESOURCE_ATTRIBUTES` is dropped whole: OTel's environment detector drops it for one malformed
 * entry, and says so at debug level only. The checks are the detector's; the value is not quoted (it may hold anything).
 */
function warnIfResourceAttributesDropped(env: Record<string, string | undefined> = process.env): void {
  const raw = env[RESOURCE_ATTRIBUTES_ENV];
  if (!raw?.trim()) return;
  const entries = raw.split(',').filter((entry) => entry.trim() !== '');
  const bad = entries.findIndex((entry) => !readableEntry(entry));
  if (bad === -1) return;
  reportOnce(
    'otel-resource-attributes',
    `ignoring ${RESOURCE_ATTRIBUTES_ENV}: its entry ${bad + 1} of ${entries.length} cannot be read, and OTel drops the whole variable (expected comma-separated key=value pairs, keys not empty, "," and "=" percent-encoded, keys and values at most ${MAX_LENGTH} characters).`,
  );
}

/**
 * Says, once, that `OTEL_RESOURCE_ATTRIBUTES` names another project than weft routes to: the project (`project`,
 * `WEFT_PROJECT`) sets `wandb.entity` and `wandb.project`, and wins, as `register()` refuses them in
 * `resourceAttributes`. Spans would otherwise go elsewhere than the variable says, without a word.
 */
function warnIfRoutingOverridden(routing: Record<string, string>, env: Record<string, string | undefined> = process.env): void {
  const raw = env[RESOURCE_ATTRIBUTES_ENV];
  if (!raw?.includes('wandb.')) return;
  const entries = raw.split(',').filter((entry) => entry.trim() !== '');
  // OTel drops the whole variable for one entry it cannot read (said above): then it sets nothing.
  if (!entries.every(readableEntry)) return;
  for (const entry of entries) {
    const [key, value] = entry.split('=').map((part) => decodeURIComponent(part.trim())) as [string, string];
    if (!ROUTING_ATTRIBUTES.includes(key) || routing[key] === value) continue;
    reportOnce(
      'otel-resource-routing',
      `${RESOURCE_ATTRIBUTES_ENV} sets ${key}, which weft sets from its project (the \`project\` option, WEFT_PROJECT): spans go to ${routing[ENTITY_ATTRIBUTE]}/${routing[PROJECT_ATTRIBUTE]}. Set the project (\`project\`, else WEFT_PROJECT) to send them elsewhere.`,
    );
    return;
  }
}

function readableEntry(entry: string): boolean {
  const parts = entry.split('=');
  if (parts.length !== 2 || parts[0]!.trim() === '') return false;
  try {
    return parts.every((part) => decodeURIComponent(part.trim()).length <= MAX_LENGTH);
  } catch {
    return false;
  }
}
