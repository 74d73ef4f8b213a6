/**
 * The paths a query reads from a call's stored JSON (inputs, output, attributes, summary), which the service
 * reads as `JSON_VALUE` text; not `summary.weave.*`, which it computes.
 */
export const callJsonPath = (path: string): boolean => /^(inputs|output|attributes|summary)(\.|$)/.test(path) && !path.startsWith('summary.weave.');
