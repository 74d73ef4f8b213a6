import fc from 'fast-check';

/**
 * Shared generators of the property tests: text with every kind of UTF-16 content a JavaScript string can hold
 * (lone surrogates included, which no UTF-8 encoder can carry as they are), and numbers at every edge of the
 * protobuf and JSON encodings.
 */

/** One unit of text: ASCII, controls, JSON's escapes, BMP, astral pairs, lone surrogates of either half. */
export const textUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', '\ufeff', '\ufffd') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', '€', '狐', '😀', '🦊', '𝄞', 'a\u0300') },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);

/** Text of up to `maxLength` units (each one or two UTF-16 code units). */
export function text(maxLength = 24): fc.Arbitrary<string> {
  return fc.string({ unit: textUnit, maxLength });
}

/** Numbers at the edges: ±0, NaN, ±Infinity, fractions, the int32/uint32/2^53/int64 boundaries, huge doubles. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    Number.EPSILON,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 32 - 1,
    2 ** 32,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    -Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER - 1,
    2 ** 63 - 1024,
    2 ** 63,
    -(2 ** 63),
    -(2 ** 63) - 2048,
    2 ** 64,
    -(2 ** 64),
    0.1,
    -1.5e-7,
    1e21,
    1e-7,
  ),
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.double(),
  fc.double({ noNaN: true, min: -(2 ** 70), max: 2 ** 70 }).map(Math.trunc),
);
