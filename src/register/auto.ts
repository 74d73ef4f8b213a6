/**
 * `weft/register` for ES modules: `node --import weft/register app.mjs`.
 *
 * Installs the import-in-the-middle loader hook, restricted to the modules weft instruments, so that
 * `import OpenAI from 'openai'` in the app is patched; then calls `register()` from the environment, before the
 * app's first import runs. It imports weft by its package name so that the app's `import ... from 'weft'`
 * shares this one copy.
 */
import { register as registerLoader } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { registerFromEnvironment } from 'weft';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
registerLoader('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
registerFromEnvironment();
// The instrumentations have told the loader which modules to hook; the app may import only once it knows.
await waitForAllMessagesAcknowledged();
