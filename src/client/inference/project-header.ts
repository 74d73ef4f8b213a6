/**
 * The header that attributes inference usage to a project, `<team>/<project>`. The spec names it with a
 * neutral word; a deployment that expects another name (e.g. `OpenAI-Project`) sets the client's
 * `projectHeader` option.
 */
export const COMPAT_PROJECT_HEADER = 'Compat-Project';
