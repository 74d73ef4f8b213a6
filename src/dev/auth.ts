import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthCheck } from './router.js';
import { HttpError } from './http.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The service's key check. Without a configured key every request passes (any key, or none, is accepted,
 * as a local stand-in should); with one, `Authorization: Bearer <key>` is required. The 401 never repeats
 * what was sent.
 */
export function bearerAuth(apiKey: string | undefined): AuthCheck {
  if (apiKey === undefined) return () => {};
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  const expected = digest(apiKey);
  return (req: IncomingMessage) => {
    const header = req.headers.authorization;
    if (header === undefined) {
      throw new HttpError(401, 'Authentication required: send "Authorization: Bearer <API key>".', {
        code: 'missing_api_key',
      });
    }
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      throw new HttpError(401, 'Authentication failed: the API key in the Authorization header is not valid.', {
        code: 'invalid_api_key',
      });
    }
  };
}
