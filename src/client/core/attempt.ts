/** One HTTP attempt: its timeout and abort, its body, and how what undici throws becomes a weft error. */
import type { Dispatcher } from 'undici';
import { BodyStreamError } from './body.js';
import { withoutSecretTail } from './error-body.js';
import { WeftAbortError, WeftConnectionError, WeftError, WeftRequestBodyError, WeftTimeoutError } from './errors.js';
import type { ResponseBody } from './types.js';

/**
 * Ties one attempt to the caller's signal and to the timeout, and turns what undici throws into weft
 * errors: the caller's abort wins over the timeout, which wins over a plain connection error.
 */
export class AttemptGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private readonly onCallerAbort = () => this.controller.abort(this.callerSignal?.reason);
  private readonly onClientClose = () => this.controller.abort(this.closing.reason);

  /**
   * @param closing fires when the client is closed: the attempt ends then, and with it its body, so that
   *   `close()` need not wait for a request or a stream nobody will finish.
   */
  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly closing: AbortSignal,
    private readonly timeoutMs: number,
    private readonly method: string,
    private readonly path: string,
  ) {
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    closing.addEventListener('abort', this.onClientClose, { once: true });
    if (closing.aborted) this.onClientClose();
    if (timeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort(new Error('timeout'));
      }, timeoutMs);
    }
  }

  /** Aborts the attempt: on the caller's abort, the client's close, or the timeout. Given to undici's request. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the timeout's timer: from the headers on, undici's body timeout watches for silence instead. */
  headersReceived(): void {
    clearTimeout(this.timer);
  }

  /** Stops the timer and removes the listeners: the attempt is over. */
  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.closing.removeEventListener('abort', this.onClientClose);
  }

  /** The weft error of what undici threw: the caller's abort first, then the close, a failed request body, the timeout, a connection error. */
  classify(error: unknown): WeftError {
    if (error instanceof WeftError) return error;
    const { method, path } = this;
    if (this.callerSignal?.aborted) return new WeftAbortError(method, path, { cause: this.callerSignal.reason });
    if (this.closing.aborted) return clientClosedError(method, path, 'was cut short: the client was closed');
    if (error instanceof BodyStreamError) return new WeftRequestBodyError(method, path, error.cause);
    const code = errorCode(error);
    const cause = withoutRawBytes(error);
    if (this.timedOut || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new WeftTimeoutError(method, path, this.timeoutMs, { cause });
    }
    const reason = error instanceof Error ? error.message : String(error);
    return new WeftConnectionError(`weft: ${method} ${path} failed: ${reason}${code ? ` (${code})` : ''}`, method, path, {
      cause,
      ...(code ? { code } : {}),
    });
  }
}

/**
 * undici's error, as the cause of weft's, without the raw bytes some carry: an `HTTPParserError`'s `data` is what
 * the server sent back, and a server that echoes the request puts the `Authorization` header there, for any
 * `util.inspect(err)` or `onRetry` logger to print. A copy with the same class name, message, code and stack.
 */
function withoutRawBytes(error: unknown): unknown {
  if (!(error instanceof Error) || !('data' in error)) return error;
  const copy = new Error(error.message);
  copy.name = error.name;
  if (error.stack !== undefined) copy.stack = error.stack;
  const code = errorCode(error);
  if (code !== undefined) Object.assign(copy, { code });
  return copy;
}

/** The error of a request the client's `close()` stopped, or one made after it. */
export function clientClosedError(method: string, path: string, what: string): WeftConnectionError {
  return new WeftConnectionError(`weft: ${method} ${path} ${what}`, method, path, { code: CLIENT_CLOSED });
}

/** The `code` of {@link clientClosedError}. */
export const CLIENT_CLOSED = 'WEFT_CLIENT_CLOSED';

type UndiciBody = Dispatcher.ResponseData['body'];

/** What releases one response: the attempt's guard (its listeners) and undici's body (the connection). */
interface HeldResponse {
  body: UndiciBody;
  guard: AttemptGuard;
}

/**
 * Releases the response of a body the app dropped unread (a stream never iterated nor cancelled, e.g. an error
 * path that threw first): the guard's listeners on the caller's signal and the client's `closing` would hold it
 * for good, and undici's body its connection until the body timeout. Keyed on the {@link GuardedBody}, which
 * whatever the app holds to read it (a stream, the iterator of one, a raw response) keeps reachable, and which
 * nothing that stays behind (the held value, the guard's listeners, undici) refers to.
 */
const droppedBodies = new FinalizationRegistry<HeldResponse>(({ body, guard }) => releaseResponse(body, guard));

/** undici's response body, with weft errors and a release of the attempt's guard when done. */
export class GuardedBody implements ResponseBody {
  constructor(
    private readonly body: UndiciBody,
    private readonly guard: AttemptGuard,
  ) {
    droppedBodies.register(this, { body, guard }, this);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of this.body) yield chunk as Uint8Array;
    } catch (error) {
      throw this.guard.classify(error);
    } finally {
      this.cancel();
    }
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json<T = unknown>(): Promise<T> {
    return JSON.parse(await this.text()) as T;
  }

  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  cancel(): void {
    droppedBodies.unregister(this);
    releaseResponse(this.body, this.guard);
  }
}

function releaseResponse(body: UndiciBody, guard: AttemptGuard): void {
  guard.dispose();
  if (body.destroyed) return;
  // undici's body, destroyed before it was read to its end, emits an AbortError: with nobody listening (a body
  // never read), that would be an uncaught exception in the app. Cancelling is what the caller asked for.
  body.on('error', ignoreError);
  body.destroy();
}

function ignoreError(): void {}

/** Error bodies are read whole but bounded, so a misbehaving server cannot exhaust memory. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * The body of a non-2xx response, read up to 64 KiB: parsed JSON, else its text, or undefined when empty. A body cut
 * short (the connection failed) gives what was read, without the start of one of `secrets` it may end with.
 */
export async function readErrorBody(body: GuardedBody, secrets?: readonly string[]): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= MAX_ERROR_BODY_BYTES) {
        cut = true;
        break;
      }
    }
  } catch (error) {
    // The caller's abort is what the caller asked for, whatever the status said; so is the client's close(), which
    // ends what is in flight with WEFT_CLIENT_CLOSED (the status would say the request failed on its own).
    if (error instanceof WeftAbortError || (error instanceof WeftConnectionError && error.code === CLIENT_CLOSED)) throw error;
    // Otherwise the status is what matters; a body cut short still gives what was read.
    cut = true;
  }
  const read = new TextDecoder().decode(Buffer.concat(chunks));
  // A cut may fall inside the key of a server that echoes the request: the part before it is no longer the key, and
  // the error's redaction would not find it.
  const text = cut ? withoutSecretTail(read, secrets) : read;
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Failures that happen before a single byte of the request left this machine. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether an attempt failed before the request left this machine, so that sending it again cannot repeat it. */
export function wasNeverSent(error: WeftError): boolean {
  return error instanceof WeftConnectionError && !(error instanceof WeftTimeoutError) && UNSENT_CODES.has(error.code ?? '');
}

/**
 * undici refused the request as given (e.g. a header it does not accept that weft's own checks let through):
 * sending it again cannot help.
 */
export function wasRefusedByUndici(error: WeftError): boolean {
  return error instanceof WeftConnectionError && error.code === 'UND_ERR_INVALID_ARG';
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

