import { config } from '../config.js';
import { dynamoAccountStore } from '../adapters/table/account-store.js';
import { cachedAccountReads, cachedConsoleSessionReads } from '../adapters/cached-account-reads.js';
import { dynamoConsoleSessionStore } from '../adapters/table/console-session-store.js';
import { dynamoRequestBucketStore } from '../adapters/table/request-bucket-store.js';
import { lazy } from '../shared/memo.js';
import { table } from './table.js';

export const accounts = lazy(() => dynamoAccountStore(table()));

/** The authorizer's key and account lookups, answered from a per-process cache for API_KEY_CACHE_SECONDS. */
export const accountReads = lazy(() => cachedAccountReads(accounts(), config().API_KEY_CACHE_SECONDS * 1000));

/** The accounts' request buckets (the authorizer takes a token per request). */
export const requestBuckets = lazy(() => dynamoRequestBucketStore(table()));

/** Console sessions and their owners' standings (domain/console/sessions.ts). */
export const consoleSessions = lazy(() => dynamoConsoleSessionStore(table()));

/** The authorizer's console-session reads, from the same per-process cache as its key reads (API_KEY_CACHE_SECONDS). */
export const consoleSessionReads = lazy(() => cachedConsoleSessionReads(consoleSessions(), config().API_KEY_CACHE_SECONDS * 1000));
