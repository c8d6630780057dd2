import { tableDefinition } from './definition.js';
import { tableKeys, type IndexFields, type KeyFields, type KeyTemplates } from './keys.js';

/**
 * Entities at the table edge, in the manner of ElectroDB but in this table's own item layout: each
 * kind of item is declared once in entities/, with its `entity` tag, its key templates, and its
 * mapping to and from the domain record. Stores write items and read records only through them.
 */

export type Item = Record<string, unknown>;

/** What an item is made of, besides its keys and tag. */
interface ItemParts<K extends KeyTemplates> {
  /** The values of the key templates' slots (and of GSI1's: without them, the item is not on the index). */
  fields: KeyFields<K> & IndexFields<K>;
  /** The attributes stored beside the keys. */
  attributes: object;
  /** Epoch seconds after which DynamoDB's TTL deletes the item. */
  expiresAt?: number;
}

interface EntitySpec<K extends KeyTemplates, Args extends unknown[], R> {
  /** The `entity` attribute of every item of this kind (the relay's stream filter and the local host's reconciliation match on it). */
  name: string;
  keys: K;
  /** Absent for items only ever written by update expressions. */
  toItem?: (...args: Args) => ItemParts<K>;
  toRecord?: (attributes: Item) => R;
}

type Writes<Args extends unknown[]> = [Args] extends [never] ? object : { item: (...args: Args) => Item };
type Reads<R> = [R] extends [never] ? object : { record: (item: Item) => R };

/** The item's attributes without its keys, tag and expiry: what the domain record is read from. */
function attributesOf(item: Item): Item {
  const { PK: _pk, SK: _sk, GSI1PK: _gpk, GSI1SK: _gsk, entity: _entity, [tableDefinition.timeToLiveAttribute]: _ttl, ...attributes } = item;
  return attributes;
}

export function defineEntity<const K extends KeyTemplates, Args extends unknown[] = never, R = never>(spec: EntitySpec<K, Args, R>) {
  const keys = tableKeys(spec.keys);
  const { toItem, toRecord } = spec;
  return {
    name: spec.name,
    ...keys,
    ...((toItem && {
      item: (...args: Args): Item => {
        const { fields, attributes, expiresAt } = toItem(...args);
        return {
          ...keys.key(fields),
          ...keys.indexKey(fields),
          entity: spec.name,
          ...attributes,
          ...(expiresAt === undefined ? {} : { [tableDefinition.timeToLiveAttribute]: expiresAt }),
        };
      },
    }) as Writes<Args>),
    ...((toRecord && { record: (item: Item): R => toRecord(attributesOf(item)) }) as Reads<R>),
  };
}
