import { validateHeaderName } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, HttpCore, InferenceClient } from 'weft';
import { checkHeaders } from '../../../src/client/core/options.js';
import { isHeaderName } from '../../../src/header-name.js';
import { checkExportHeaders } from '../../../src/register/export-options.js';
import { configError } from '../../helpers/config-error.js';

const nodeAccepts = (name: string): boolean => {
  try {
    validateHeaderName(name);
    return true;
  } catch {
    return false;
  }
};

const BASE_URL = 'http://127.0.0.1:9';
const cores: HttpCore[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.close()));
});

describe('isHeaderName', () => {
  it("accepts exactly the one-character names Node's validateHeaderName() accepts", () => {
    for (let code = 0; code < 256; code++) {
      const name = String.fromCharCode(code);
      expect(isHeaderName(name), `character ${code}`).toBe(nodeAccepts(name));
    }
  });

  it('accepts a token of several characters and refuses one with a space, a colon, a line break or a non-ASCII letter', () => {
    for (const name of ['X-Request-Id', 'OpenAI-Project', 'x_custom.header~1']) expect(isHeaderName(name)).toBe(true);
    for (const name of ['X Request', 'Host:', 'a\r\nb', 'é']) expect(isHeaderName(name)).toBe(false);
  });

  it('refuses an empty name', () => {
    expect(isHeaderName('')).toBe(false);
  });
});

describe('a header name that is no token', () => {
  const BAD = 'X Project';

  it("is refused in the client's headers, naming `headers`", () => {
    expect(configError(() => checkHeaders({ [BAD]: 'v' })).option).toBe('headers');
  });

  it("is refused in register()'s headers, naming `headers`", () => {
    expect(configError(() => checkExportHeaders({ [BAD]: 'v' }, false)).option).toBe('headers');
  });

  it("is refused as the inference client's projectHeader, naming `projectHeader`", () => {
    const core = new HttpCore({ baseUrl: `${BASE_URL}/v1` });
    cores.push(core);
    const error = configError(() => new InferenceClient(core, { project: 'team/proj', projectHeader: BAD }));
    expect(error.option).toBe('projectHeader');
    expect(error.message).toMatch(/option `projectHeader` must be an HTTP header name \(letters, digits and .*\), got the string "X Project"/);
  });

  it("is refused as the Client's inferenceProjectHeader, naming `inferenceProjectHeader`", () => {
    const error = configError(() => new Client({ baseUrl: BASE_URL, project: 'team/proj', inferenceProjectHeader: BAD }));
    expect(error.option).toBe('inferenceProjectHeader');
  });

  it('is refused as a projectHeader that is not a string, which was sent as its text', () => {
    const core = new HttpCore({ baseUrl: `${BASE_URL}/v1` });
    cores.push(core);
    const error = configError(() => new InferenceClient(core, { project: 'team/proj', projectHeader: 42 as unknown as string }));
    expect(error.message).toMatch(/got 42\./);
  });
});
