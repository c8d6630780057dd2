import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const apiKeyPattern = /^sk_(live|test)_[0-9A-Za-z]{40}$/;

/** `sk_live_` / `sk_test_` + 40 base62 characters (DESIGN §3); only its SHA-256 is stored. */
export function generateApiKey(mode: 'live' | 'test' = 'live'): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += BASE62[randomInt(BASE62.length)];
  return `sk_${mode}_${body}`;
}

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

/** `sk_live_` and four characters: 24 bits tell an account's keys apart, and no one can use them. */
export const apiKeyPrefix = (apiKey: string): string => apiKey.slice(0, apiKey.indexOf('_', 3) + 5);
