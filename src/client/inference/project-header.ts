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
