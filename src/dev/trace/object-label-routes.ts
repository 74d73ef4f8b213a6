import type { DevContext } from '../context.js';
import { sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody, queryString } from '../validate.js';
import { reqStr, strList } from './fields.js';
import { ObjectLabels } from './object-labels.js';

const names = { ...strList, required: true };

/** A route that changes the tags of the version in its path. */
function tagRoute(method: string, path: string, change: (projectId: string, objectId: string, digest: string, tags: string[]) => void): Route {
  return {
    method,
    path,
    handler: async (c) => {
      const body = checkBody<{ project_id: string; tags: string[] }>(await c.json(), { strict: true, fields: { project_id: reqStr, tags: names } });
      change(body.project_id, c.params.object_id!, c.params.digest!, body.tags);
      sendJson(c.res, 200, {});
    },
  };
}

/**
 * Aliases and tags of object versions. The list routes answer `{aliases}` and `{tags}`, sorted names (the
 * reference leaves both shapes open; `{aliases: string[]}` is what the service's generated models show).
 */
export function objectLabelRoutes(ctx: DevContext): Route[] {
  const labels = new ObjectLabels(ctx);
  return [
    {
      method: 'PUT',
      path: '/objs/{object_id}/aliases',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; digest: string; aliases: string[] }>(await c.json(), {
          strict: true,
          fields: { project_id: reqStr, digest: reqStr, aliases: names },
        });
        labels.setAliases(body.project_id, c.params.object_id!, body.digest, body.aliases);
        sendJson(c.res, 200, {});
      },
    },
    {
      method: 'POST',
      path: '/objs/{object_id}/aliases/remove',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; aliases: string[] }>(await c.json(), { strict: true, fields: { project_id: reqStr, aliases: names } });
        labels.removeAliases(body.project_id, c.params.object_id!, body.aliases);
        sendJson(c.res, 200, {});
      },
    },
    tagRoute('PUT', '/objs/{object_id}/versions/{digest}/tags', (p, o, d, tags) => labels.addTags(p, o, d, tags)),
    tagRoute('POST', '/objs/{object_id}/versions/{digest}/tags/remove', (p, o, d, tags) => labels.removeTags(p, o, d, tags)),
    {
      method: 'GET',
      path: '/aliases',
      handler: (c) => sendJson(c.res, 200, { aliases: labels.aliasNames(queryString(c.url, 'project_id')) }),
    },
    {
      method: 'GET',
      path: '/tags',
      handler: (c) => sendJson(c.res, 200, { tags: labels.tagNames(queryString(c.url, 'project_id')) }),
    },
  ];
}
