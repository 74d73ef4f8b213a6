import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { checkBody } from '../validate.js';
import { writeFile } from './object-writes.js';

// Node's fetch implementation parses multipart bodies, so the service needs no parser of its own.
async function readForm(body: Buffer, contentType: string): Promise<FormData> {
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    throw new HttpError(415, 'POST /file/create takes multipart/form-data with the fields project_id and file.');
  }
  try {
    return await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new HttpError(400, `Could not read the multipart body: ${(error as Error).message}`);
  }
}

/** Files: multipart upload (content-addressed by SHA-256), download of the raw bytes by digest, and the project's total size. */
export function fileRoutes(ctx: DevContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/file/create',
      handler: async (c) => {
        const form = await readForm(await c.body(), c.req.headers['content-type'] ?? '');
        const projectId = form.get('project_id');
        const file = form.get('file');
        const issues = [];
        if (typeof projectId !== 'string' || projectId === '') {
          issues.push({ loc: ['body', 'project_id'], msg: 'Field required', type: 'missing' });
        }
        if (file === null || typeof file === 'string') {
          issues.push({ loc: ['body', 'file'], msg: 'Field required: a file part', type: 'missing' });
        }
        if (issues.length > 0) throw new HttpError(422, issues);
        const blob = file as File;
        const content = Buffer.from(await blob.arrayBuffer());
        sendJson(c.res, 200, { digest: writeFile(ctx, projectId as string, blob.name || 'file', content) });
      },
    },
    {
      method: 'POST',
      path: '/file/content',
      handler: async (c) => {
        const body = checkBody<{ project_id: string; digest: string }>(await c.json(), {
          strict: true,
          fields: { project_id: { type: 'string', required: true }, digest: { type: 'string', required: true } },
        });
        const file = ctx.store.file(body.project_id, body.digest);
        if (!file) throw new HttpError(404, `File ${body.digest} not found`);
        c.res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': String(file.content.length),
        });
        c.res.end(file.content);
      },
    },
    {
      method: 'POST',
      path: '/files/query_stats',
      handler: async (c) => {
        const body = checkBody<{ project_id: string }>(await c.json(), { strict: true, fields: { project_id: { type: 'string', required: true } } });
        const total = ctx.store.projectFiles(body.project_id).reduce((n, f) => n + f.content.length, 0);
        sendJson(c.res, 200, { total_size_bytes: total });
      },
    },
  ];
}
