import { describe, expect, it } from 'vitest';
import { WeftConfigError } from 'weft';
import { startDevService } from 'weft/dev';

describe('startDevService() given an option it cannot use', () => {
  it('rejects a port outside 0 to 65535 with a WeftConfigError naming `port`, listening nowhere', async () => {
    const starting = startDevService({ port: 65536, log: false });
    await expect(starting).rejects.toBeInstanceOf(WeftConfigError);
    await expect(starting).rejects.toMatchObject({ option: 'port' });
    await expect(starting).rejects.toThrow(/option `port` must be an integer from 0 to 65535, got 65536/);
  });

  it('rejects a maxTraces that is not a positive integer with a WeftConfigError naming it', async () => {
    const starting = startDevService({ port: 0, maxTraces: 0, log: false });
    await expect(starting).rejects.toBeInstanceOf(WeftConfigError);
    await expect(starting).rejects.toMatchObject({ option: 'maxTraces' });
    await expect(starting).rejects.toThrow(/option `maxTraces` must be a positive integer, got 0/);
  });
});
