import type { FileContent } from '../../core/multipart.js';

/** What `files.create` uploads: bytes, a Blob, or a stream, sent as the multipart field `file`. */
export interface FileCreateInput {
  content: FileContent;
  /** File name sent in the multipart part; default `file`. */
  filename?: string | undefined;
  /** Default `application/octet-stream` (a Blob's own type when it has one). */
  contentType?: string | undefined;
  /** Defaults to the client's project. */
  project_id?: string | undefined;
}
/** POST /file/create */
export interface FileCreateRes {
  digest: string;
}

/** POST /file/content: the answer is the raw bytes. */
export interface FileContentReq {
  project_id: string;
  digest: string;
}

/** POST /files/query_stats */
export interface FilesStatsReq {
  project_id: string;
}
/** The answer of POST /files/query_stats. */
export interface FilesStatsRes {
  total_size_bytes: number;
}
