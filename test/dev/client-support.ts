import { afterEach } from 'vitest';
import { Client } from 'weft';
import { type DevService, type DevServiceOptions, startDevService } from 'weft/dev';

/** The project the client tests write to. */
export const PROJECT = 'team/proj';

const open: { dev: DevService; client: Client }[] = [];
afterEach(async () => {
  for (const { dev, client } of open.splice(0)) {
    await client.close();
    await dev.close();
  }
});

/** Starts a dev service on a free port and weft's own Client for it; both are closed after the test. */
export async function devClient(options: DevServiceOptions = {}): Promise<{ dev: DevService; client: Client }> {
  const dev = await startDevService({ port: 0, log: false, ...options });
  // No retries: a test sees the dev service's first answer, whatever it is.
  const client = new Client({ baseUrl: dev.url, project: PROJECT, maxRetries: 0 });
  open.push({ dev, client });
  return { dev, client };
}
