import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { MultipartBody } from '../core/multipart.js';
import type { ResponseStream } from '../core/response-stream.js';
import { TraceResource } from './resource.js';
import type { ProjectScoped } from './types/common.js';
import type { FileContentReq, FileCreateInput, FileCreateRes, FilesStatsReq, FilesStatsRes } from './types/files.js';

/** Content-addressed files (images, audio, attachments). `client.trace.files` */
export class Files extends TraceResource {
  /**
   * Uploads a file as multipart (`project_id` and `file` fields). Bytes and Blobs are streamed from memory or
   * disk; a stream is sent as it is read (and then cannot be retried). POST /file/create
   *
   * @example
   * const { digest } = await client.trace.files.create({ content: await fs.openAsBlob('photo.png'), filename: 'photo.png' });
   */
  async create(input: FileCreateInput, options: CallOptions = {}): Promise<FileCreateRes> {
    const form = new MultipartBody()
      .field('project_id', input.project_id ?? this.projectId)
      .file('file', input.content, { filename: input.filename ?? 'file', ...(input.contentType ? { contentType: input.contentType } : {}) });
    // The digest is derived from the content, so sending the same bytes twice stores one file.
    return this.scope.core.request({ method: 'POST', path: '/file/create', body: form, ...forwardCallOptions(options, true) });
  }

  /** Downloads a file's bytes. POST /file/content */
  async content(req: ProjectScoped<FileContentReq>, options: CallOptions = {}): Promise<Uint8Array> {
    return this.scope.core.bytes({ method: 'POST', path: '/file/content', body: this.scoped(req), ...forwardCallOptions(options, true) });
  }

  /** Downloads a file as a stream of chunks, for files too big to hold in memory. POST /file/content */
  contentStream(req: ProjectScoped<FileContentReq>, options: CallOptions = {}): ResponseStream<Uint8Array> {
    return this.scope.core.stream({
      method: 'POST',
      path: '/file/content',
      body: this.scoped(req),
      ...forwardCallOptions({ ...options, headers: { accept: '*/*', ...options.headers } }, true),
    });
  }

  /** Total size of the project's files. POST /files/query_stats */
  async stats(req: ProjectScoped<FilesStatsReq> = {}, options?: CallOptions): Promise<FilesStatsRes> {
    return this.json('POST', '/files/query_stats', { body: this.scoped(req), retry: 'idempotent' }, options);
  }
}
