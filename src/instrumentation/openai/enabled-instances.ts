import { reportOnce } from '../../diagnostics.js';
import type { PatchHost } from './patch-completions.js';
import { type PatchRecord, unpatch } from './wrapper-marks.js';

// The enabled instances of every copy of weft, latest last: an `openai` module is patched once, by whichever
// instance came first, but its calls are recorded as the instance enabled (or configured) last says, among those
// that count (see `latestEnabled`). A disabled instance leaves the list and hands its patches to one still in it.
const ENABLED_KEY = Symbol.for('weft.openai.enabledInstrumentations');
const enabledHolder = globalThis as { [ENABLED_KEY]?: PatchHost[] };

/** The enabled instances of every copy of weft in the process, latest last. */
export function enabledHosts(): PatchHost[] {
  enabledHolder[ENABLED_KEY] ??= [];
  return enabledHolder[ENABLED_KEY];
}

/**
 * The instance whose tracer and options a patched `openai` call uses: the latest enabled one that was given a real
 * tracer provider. The constructor enables every instance, so one made and never registered (a throwaway, or a
 * library's default) is enabled too, with the global tracer, which is the no-op one under
 * `register({ global: false })`: following it would silently lose chat spans, or record them with options nobody
 * chose. Only when no enabled instance was given a provider (an app that set the global one itself and never
 * registered the instrumentation) is the latest enabled one followed, as it is the only one there is.
 */
export function latestEnabled(): PatchHost | undefined {
  const hosts = enabledHosts();
  let fallback: PatchHost | undefined;
  for (let i = hosts.length - 1; i >= 0; i--) {
    const host = hosts[i]!;
    if (!host.isEnabled()) continue;
    if (counts(host)) return host;
    fallback ??= host;
  }
  return fallback;
}

/** Whether an instance counts among those followed: it was given a real tracer provider (see {@link latestEnabled}). */
function counts(host: PatchHost): boolean {
  return host.hasTracerProvider ? host.hasTracerProvider() : true;
}

/** Makes `host` the one whose options apply, and says so once when another instance that counts is enabled too. */
export function markLatest(host: PatchHost): void {
  const hosts = leave(host);
  if (counts(host) && hosts.some((other) => other.isEnabled() && counts(other))) {
    reportOnce(
      'openai:several-instances',
      'several OpenAIInstrumentation instances are enabled; openai chat calls are recorded with the options of the one enabled or configured last.',
    );
  }
  hosts.push(host);
}

/** Takes `host` out of the enabled instances (it is being disabled, or moves to the end); returns what is left. */
export function leave(host: PatchHost): PatchHost[] {
  const hosts = enabledHosts();
  const index = hosts.indexOf(host);
  if (index >= 0) hosts.splice(index, 1);
  return hosts;
}

/**
 * Releases a patch of an instance being disabled (`self`): handed over to the instance that now applies, if one
 * is still enabled and can adopt it, else undone. An instance that was never given a tracer provider does not
 * inherit from one that was: disabling every registered instrumentation (`disableInstrumentations()`) unpatches
 * openai even if a stray instance was constructed. Either way the patch is no longer `self`'s to undo; its record
 * stays, inactive, so that enable() patches again if nobody holds the patch by then.
 */
export function release(record: PatchRecord, self: PatchHost): void {
  if (!record.active) return;
  const heir = latestEnabled();
  if (heir && heir !== self && heir.adoptPatch && (counts(heir) || !counts(self))) {
    heir.adoptPatch(record.prototype, record.methods);
    record.active = false;
    return;
  }
  unpatch(record);
}
