/**
 * `weft/register` for ES modules: `node --import weft/register app.mjs`.
 *
 * Installs the import-in-the-middle loader hook, restricted to the modules weft instruments, so that
 * `import OpenAI from 'openai'` in the app is patched; then calls `register()` from the environment, before the
 * app's first import runs. It imports weft by its package name so that the app's `import ... from 'weft'`
 * shares this one copy.
 */
import { register as registerLoader } from 'node:module';
import { createAddHookMessageChannel, Hook } from 'import-in-the-middle';
import { registerFromEnvironment, weftBundle } from 'weft';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
let hooked = false;
if (weftBundle()) {
  // Bundled into an app (import 'weft/register'): a loader hook would see none of the modules the bundler copied in,
  // and waiting for it would hold back the rest of the bundle, the app's own instrumentOpenAI(OpenAI) included.
  cannotHook('it runs from a bundle');
} else {
  try {
    registerLoader('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
    hooked = true;
  } catch (error) {
    cannotHook((error as NodeJS.ErrnoException).code ?? String(error));
  }
}
const registration = registerFromEnvironment();
if (hooked) {
  // An instrumentation tells the loader which modules to hook as it is enabled. One enabled before the loader was
  // installed (a registration the app's own preload made first, or `-r weft/register` given too) told nobody, and the
  // app's `import` of openai would go untraced: the loader is told its modules now. Told twice, it hooks them once.
  const modules = moduleNames(registration?.instrumentations ?? []);
  if (modules.length > 0) new Hook(modules, () => undefined).unhook();
  // The app may import only once the loader knows. Without a loader nobody answers, and waiting would hold the app
  // forever.
  await waitForAllMessagesAcknowledged();
}

/** Says why no loader hook is installed: the app starts all the same, and its `import` of openai is not patched. */
function cannotHook(reason: string): void {
  const message = `weft/register could not install its loader hook (${reason}): \`import\` of openai is not traced.`;
  process.emitWarning(message, { code: 'WEFT_REGISTER' });
}

/** The modules `instrumentations` patch (an `InstrumentationBase`'s module definitions), nested lists included. */
function moduleNames(instrumentations: readonly unknown[]): string[] {
  const names = new Set<string>();
  for (const instrumentation of instrumentations.flat(Number.POSITIVE_INFINITY)) {
    const definitions = (instrumentation as { getModuleDefinitions?: () => readonly { name: string }[] }).getModuleDefinitions?.() ?? [];
    for (const definition of definitions) names.add(definition.name);
  }
  return [...names];
}
