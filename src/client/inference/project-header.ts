import { describeValue, WeftConfigError } from '../../config/index.js';
import { HEADER_NAME_RULE, isHeaderName } from '../../header-name.js';

/**
 * The header that attributes inference usage to a project, `<team>/<project>`, as the spec names it (a neutral word
 * in place of the vendor's prefix).
 */
export const COMPAT_PROJECT_HEADER = 'Compat-Project';

/**
 * The same header as the hosted inference service reads it (the reference: the `openai` package's `project` option).
 * weft sends both names by default, with the same value: each service reads its own and ignores the other.
 */
export const OPENAI_PROJECT_HEADER = 'OpenAI-Project';

/**
 * The one name to send the project under, as an app gave it (`projectHeader` of the inference client, `option`
 * then, or the `Client`'s `inferenceProjectHeader`): a header name, or `undefined` for both default names.
 *
 * @throws {WeftConfigError} naming `option`, for anything else.
 */
export function checkProjectHeader(name: unknown, option: string): string | undefined {
  if (name === undefined || (typeof name === 'string' && isHeaderName(name))) return name;
  throw new WeftConfigError(option, undefined, `weft: option \`${option}\` must be an HTTP header name (${HEADER_NAME_RULE}), got ${describeValue(name)}.`);
}
