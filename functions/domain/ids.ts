import { v7 as uuidv7 } from 'uuid';

/** Resource prefixes (DESIGN §3); an id is `<prefix>_<32 lowercase hex of a UUIDv7>`. */
export const idPrefixes = {
  account: 'acct',
  scanner: 'scn',
  upload: 'upl',
  run: 'run',
  observation: 'obs',
  moment: 'mom',
  analysis: 'ana',
  batch: 'bat',
  render: 'rnd',
  webhookEndpoint: 'whe',
  delivery: 'dlv',
  event: 'evt',
  ledger: 'led',
  apiKey: 'key',
} as const;

export type IdKind = keyof typeof idPrefixes;

export const newId = (kind: IdKind): string => `${idPrefixes[kind]}_${uuidv7().replaceAll('-', '')}`;

/** Matches exactly the ids `newId(kind)` makes. */
export const idPattern = (kind: IdKind): RegExp => new RegExp(`^${idPrefixes[kind]}_[0-9a-f]{32}$`);

/** The smallest id of `kind` minted after `instant` (a UUIDv7 starts with its 48-bit millisecond time). */
export const firstIdAfter = (kind: IdKind, instant: Date): string => `${idPrefixes[kind]}_${(instant.getTime() + 1).toString(16).padStart(12, '0')}`;
