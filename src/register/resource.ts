import { defaultResource, detectResources, envDetector, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { VERSION } from '../version.js';

/**
 * The resource of every span: OTel's defaults, then `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`, then
 * weft's routing attributes and the user's own, which win.
 */
export function buildResource(
  routing: Record<string, string>,
  serviceName: string | undefined,
  extra: Record<string, string | number | boolean> = {},
): Resource {
  const own: Record<string, string | number | boolean> = { ...routing, 'weft.version': VERSION, ...extra };
  if (serviceName !== undefined) own['service.name'] = serviceName;
  return defaultResource().merge(detectResources({ detectors: [envDetector] })).merge(resourceFromAttributes(own));
}
