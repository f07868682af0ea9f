/** The bytes of JSON's structure, for the readers that work on a body's bytes (json-array-split.ts, json-bytes.ts). */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;
export const COMMA = 0x2c;

/** Whether the byte is JSON whitespace (space, line feed, carriage return, tab). */
export function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
