/**
 * Every table key is composed here, from the templates each entity declares (entities/): literal
 * text with `{field}` slots, `{field:4}` for a number zero-padded to 4 digits so that lexical
 * order is numeric order. Every partition starts with the account, so a lookup can never cross
 * accounts; the exceptions are the API-key lookup, which is how a request finds its account in
 * the first place, the deployment's admission (DESIGN §6), which is shared by every account by
 * design, the local host's console sign-in links and the console's sessions (found by the token's
 * hash, as keys are), console owners (who may move between accounts), and GSI1's work queues of the
 * outbox relay and the webhook sender (read by them, never by a request).
 */
export type TableKey = { PK: string; SK: string };
type IndexKey = { GSI1PK: string; GSI1SK: string };

export const ACCOUNT_PARTITION = 'ACCT#{accountId}';
/** The deployment's admission (DESIGN §6): its admitted count and the accounts waiting for capacity. */
export const ADMISSION_PARTITION = 'ADMISSION';

/** A table key's templates, and GSI1's when the item is on the index. */
export interface KeyTemplates {
  PK: string;
  SK: string;
  GSI1PK?: string;
  GSI1SK?: string;
}

/** The fields a template's slots name. */
type SlotsOf<T extends string> = T extends `${string}{${infer Slot}}${infer Rest}`
  ? (Slot extends `${infer Field}:${string}` ? Field : Slot) | SlotsOf<Rest>
  : never;
type Value = string | number;

export type KeyFields<K extends KeyTemplates> = Record<SlotsOf<K['PK'] | K['SK']>, Value>;
/** An index slot without a value leaves the item off the index (a sparse index). */
export type IndexFields<K extends KeyTemplates> = Partial<Record<SlotsOf<NonNullable<K['GSI1PK'] | K['GSI1SK']>>, Value | null>>;

/** An account-scoped collection: the partition and sort-key prefix to Query, on the table or GSI1. */
export interface Collection {
  PK: string;
  prefix: string;
  index?: 'GSI1';
  /** Only sort keys at or after this one (still within the prefix). */
  from?: string;
}

/** The key attributes a collection is queried (and its cursors keyed) by. */
export const keyAttributesOf = (collection: Collection) =>
  collection.index ? ({ partition: 'GSI1PK', sort: 'GSI1SK' } as const) : ({ partition: 'PK', sort: 'SK' } as const);

const SLOT = /\{(\w+)(?::(\d+))?\}/g;

/**
 * The template filled in: undefined when a slot has no value, or, as a prefix, the text up to the
 * first slot without one (the key prefix every item of a collection shares).
 */
function fill(template: string, values: Partial<Record<string, Value | null>>, asPrefix = false): string | undefined {
  let text = '';
  let end = 0;
  for (const slot of template.matchAll(SLOT)) {
    text += template.slice(end, slot.index);
    const value = values[slot[1]!];
    if (value === undefined || value === null) return asPrefix ? text : undefined;
    text += slot[2] ? String(value).padStart(Number(slot[2]), '0') : String(value);
    end = slot.index + slot[0].length;
  }
  return text + template.slice(end);
}

function filled(template: string, values: Partial<Record<string, Value | null>>): string {
  const text = fill(template, values);
  if (text === undefined) throw new Error(`A value for every slot of the key ${template} is required`);
  return text;
}

/** The keys, index keys and collections one entity's templates compose. */
export function tableKeys<const K extends KeyTemplates>(templates: K) {
  // Empty for an entity that is not on GSI1: it then has no index keys.
  const index = { PK: templates.GSI1PK ?? '', SK: templates.GSI1SK ?? '' };
  const indexKey = (fields: IndexFields<K>): IndexKey | undefined => {
    const GSI1PK = index.PK && fill(index.PK, fields);
    const GSI1SK = index.SK && fill(index.SK, fields);
    return GSI1PK && GSI1SK ? { GSI1PK, GSI1SK } : undefined;
  };
  return {
    templates,
    key: (fields: KeyFields<K>): TableKey => ({ PK: filled(templates.PK, fields), SK: filled(templates.SK, fields) }),
    /** GSI1's keys; undefined when the item is not on the index. */
    indexKey,
    /** The items that share the partition and the sort key's leading slots given. */
    collection: (fields: Record<SlotsOf<K['PK']>, Value> & Partial<Record<SlotsOf<K['SK']>, Value>>): Collection => ({
      PK: filled(templates.PK, fields),
      prefix: fill(templates.SK, fields, true)!,
    }),
    /** The same on GSI1. */
    indexCollection: (fields: Partial<Record<SlotsOf<NonNullable<K['GSI1PK'] | K['GSI1SK']>>, Value>>): Collection => ({
      index: 'GSI1',
      PK: filled(index.PK, fields),
      prefix: fill(index.SK, fields, true)!,
    }),
  };
}
