/**
 * The same check for a CommonJS app, whose `import` of weft resolves to the `require` declarations
 * (dist/*.d.cts): `undefined` in an optional option is "not given" there too.
 */
import { Client, op, register, withContext } from 'weft';
import { startDevService } from 'weft/dev';

const text: string | undefined = process.env.SOME_TEXT;
const count: number | undefined = process.env.SOME_NUMBER ? Number(process.env.SOME_NUMBER) : undefined;

new Client({ apiKey: text, project: text, inferenceBaseUrl: text, timeoutMs: count, maxRetries: count });
register({ project: text, serviceName: text, exitFlushTimeoutMillis: count });
void startDevService({ port: count, host: text, dataFile: text });
withContext({ threadId: text, userId: text }, () => 1);
op(() => 1, { name: text, kind: text });
